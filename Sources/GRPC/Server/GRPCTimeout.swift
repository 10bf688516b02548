/// `grpc-timeout` (`15S`, `15100m`, ...) in nanoseconds; nil when malformed.
package func grpcTimeoutNanoseconds(_ text: String) -> Int64? {
    guard let unit = text.last, text.count >= 2, text.count <= 9 else { return nil }
    guard let amount = Int64(text.dropLast()), amount >= 0 else { return nil }
    let scale: Int64
    switch unit {
    case "H": scale = 3_600_000_000_000
    case "M": scale = 60_000_000_000
    case "S": scale = 1_000_000_000
    case "m": scale = 1_000_000
    case "u": scale = 1000
    case "n": scale = 1
    default: return nil
    }
    let (product, overflow) = amount.multipliedReportingOverflow(by: scale)
    return overflow ? Int64.max : product
}
