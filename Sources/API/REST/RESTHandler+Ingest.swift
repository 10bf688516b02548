import JSON

extension RESTHandler {
    /// `POST /v1/providers/{p}/vehicles:reportLocations`: `{"reports":[...]}` → one outcome per report (see `IngestJSON.resultBytes`).
    func reportLocations(provider: String, body: JSONValue, context: CommandContext) async throws(APIError) -> [LocationIngestService.Outcome] {
        let entries = try IngestJSON.reportLocations(body)
        return try await api.ingest.reportLocations(provider: provider, entries: entries, context: context)
    }
}
