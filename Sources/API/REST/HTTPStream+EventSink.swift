import HTTP

/// The services' streams are sent over HTTP as `HTTPStream`s.
extension HTTPStream: EventSink {}
