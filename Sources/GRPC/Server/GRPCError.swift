/// A failure to start the gRPC server or connect the client (bad address, port in use, refused).
package struct GRPCError: Error, CustomStringConvertible, Sendable {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}
