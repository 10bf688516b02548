import JSON

extension RESTHandler {
    /// `POST /v1/providers/{p}/vehicles:reportLocations`: `{"reports":[...]}` → `{"results":[...]}`.
    func reportLocations(provider: String, body: JSONValue, context: CommandContext) async throws(APIError) -> JSONValue {
        let entries = try IngestJSON.reportLocations(body)
        let outcomes = try await api.ingest.reportLocations(provider: provider, entries: entries, context: context)
        return IngestJSON.results(outcomes)
    }
}
