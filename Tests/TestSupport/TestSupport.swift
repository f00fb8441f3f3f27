// Test-only helpers.
