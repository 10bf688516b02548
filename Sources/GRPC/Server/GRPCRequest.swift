/// One unary call as the server hands it to a handler.
package struct GRPCRequest: Sendable {
    /// `/package.Service/Method`.
    package var path: String
    /// Request metadata (lowercase names, pseudo-headers excluded), in the order sent.
    package var metadata: [(name: String, value: String)]
    /// The request message (protobuf bytes, without the 5-byte gRPC prefix).
    package var message: [UInt8]

    package func metadata(_ name: String) -> String? { metadata.first { $0.name == name }?.value }
}
