/// A statement that each connection prepares once (`PQprepare`) and then runs by name, so the
/// server parses and plans it once per session instead of once per execution.
///
/// `name` must be unique among the statements a process prepares and must always go with the same
/// `sql`: a connection remembers which names it has prepared and never prepares one twice.
package struct PreparedStatement: Sendable {
    package let name: String
    package let sql: String
    /// How many `$n` parameters `sql` takes (their types are inferred from the SQL).
    package let parameterCount: Int

    package init(name: String, sql: String, parameterCount: Int) {
        self.name = name
        self.sql = sql
        self.parameterCount = parameterCount
    }
}

/// The format PostgreSQL sends result columns in.
package enum ResultFormat: Sendable {
    /// Each type's text output (`RawRow.string`, `int64`, `uuid`, `bytes`).
    case text
    /// Each type's binary send format (`RawRow.binaryInt64`, `binaryUUID`, `binaryMicros`, `binaryJSONB`).
    case binary
}
