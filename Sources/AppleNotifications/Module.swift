// AppleNotifications: see README.md for the module's role.
