/// The `hygiene` evidence of a database target whose configuration turned the clean-up after the statements
/// off: said in the evidence rather than left empty, which a report reader would take for "nothing was needed".
package enum ErasureHygiene {
    /// A `sqlite` target with `secureDelete: false`.
    package static let sqliteOff =
        "none (secureDelete is false): the file's free pages and write-ahead log may keep the erased rows' bytes"
    /// A `postgres` target with no `vacuum` tables.
    package static let postgresOff =
        "none (no vacuum tables): the erased rows' old versions stay in the heap until a VACUUM"
}
