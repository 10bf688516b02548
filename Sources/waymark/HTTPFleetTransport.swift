import API
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSON
import Simulator
import Synchronization

/// The simulator's way to a server: URLSession requests with a `server` token for the provider,
/// minted here with the server's HS256 secret as a fleet's backend would, and minted again well
/// before it expires.
final class HTTPFleetTransport: FleetTransport {
    let baseURL: String
    let provider: String
    let secret: [UInt8]
    private let session: URLSession
    private let token = Mutex<(value: String, mintedAt: Int64)>(("", 0))

    init(baseURL: String, provider: String, secret: [UInt8]) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.provider = provider
        self.secret = secret
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 60
        configuration.httpMaximumConnectionsPerHost = 32
        session = URLSession(configuration: configuration)
    }

    /// The current server token (a new one every 30 minutes; tokens live an hour).
    func bearer() -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return token.withLock { current in
            if current.value.isEmpty || now - current.mintedAt > 1800 {
                current = (Authenticator.mint(secret: secret, role: .server, provider: provider, issuedAt: now, ttl: 3600), now)
            }
            return current.value
        }
    }

    func send(_ method: String, _ path: String, body: JSONValue?) async -> FleetResponse {
        guard let url = URL(string: baseURL + path) else { return FleetResponse(status: 0, body: .string("bad URL \(baseURL + path)")) }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(bearer())", forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = Data(body.compactBytes())
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        do {
            let (data, response) = try await session.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            let parsed = data.isEmpty ? JSONValue.null : ((try? JSONValue.parse([UInt8](data))) ?? .string(String(decoding: data, as: UTF8.self)))
            return FleetResponse(status: status, body: parsed)
        } catch {
            return FleetResponse(status: 0, body: .string("\(error)"))
        }
    }
}
