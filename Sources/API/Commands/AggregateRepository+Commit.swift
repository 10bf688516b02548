import EventStore
import JSON

extension AggregateRepository {
    /// Appends `pending` alone (expecting the version it was decided on) and records it on success.
    ///
    /// Returns nil after a version conflict while `retry` allows another attempt: the stream's
    /// cached state is marked behind, so the caller reloads and decides again. Any other failure,
    /// or a conflict on the last attempt, is thrown as the API error for `doing`.
    func commit<A: Aggregate>(_ pending: Pending<A>, metadata: JSONValue, retry: Bool,
                              doing: @autoclosure () -> String) async throws(APIError) -> AppendResult? {
        let append = try self.append(pending, metadata: metadata)
        switch await commit([append])[0] {
        case .success(let result):
            committed(pending, result)
            return result
        case .failure(let error) where error.code == .wrongExpectedVersion && retry:
            forget(pending.stream)
            return nil
        case .failure(let error):
            throw APIError(error, doing: doing())
        }
    }
}
