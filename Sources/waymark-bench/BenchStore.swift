import EventStore
import Postgres

/// The event store and one-connection pool a bench measures with, shut down however the bench ends.
enum BenchStore {
    static func with<T>(url: String, poolName: String, readPoolSize: Int, maxGroupEvents: Int,
                        _ body: (EventStore, ConnectionPool) async throws -> T) async throws -> T {
        let pool = ConnectionPool(.init(conninfo: url, size: 1, name: poolName))
        let store = EventStore(EventStore.Configuration(conninfo: url, readPoolSize: readPoolSize, committers: 2,
                                                        maxGroupEvents: maxGroupEvents, listen: false))
        do {
            let result = try await body(store, pool)
            await store.shutdown()
            await pool.shutdown()
            return result
        } catch {
            await store.shutdown()
            await pool.shutdown()
            throw error
        }
    }
}
