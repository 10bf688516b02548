/// A handler's answer: a response message with status OK, or an error status.
package enum GRPCResponse: Sendable {
    case message([UInt8])
    case status(GRPCStatus)
}
