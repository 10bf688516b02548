/// Durations as plain seconds, for rates and logs.
extension Duration {
    /// This duration in seconds.
    package var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
