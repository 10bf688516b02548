/// A numbered schema change, applied once by `Migrator`.
package struct Migration: Sendable, Hashable {
    package let version: Int
    package let name: String
    package let sql: String

    package init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}

/// The migrations shipped in `sql/` (embedded in the binary), in order.
///
/// Adding a file to `sql/` means adding one line here; `MigrationListTests` checks that the two agree.
package enum Migrations {
    package static let all: [Migration] = [
        Migration(version: 1, name: "event_store", sql: String(decoding: PackageResources._001_event_store_sql, as: UTF8.self)),
        Migration(version: 2, name: "append_guard", sql: String(decoding: PackageResources._002_append_guard_sql, as: UTF8.self)),
        Migration(version: 3, name: "projections", sql: String(decoding: PackageResources._003_projections_sql, as: UTF8.self)),
        Migration(version: 4, name: "stream_heads_tuning", sql: String(decoding: PackageResources._004_stream_heads_tuning_sql, as: UTF8.self)),
        Migration(version: 5, name: "audit", sql: String(decoding: PackageResources._005_audit_sql, as: UTF8.self)),
        Migration(version: 6, name: "webhooks", sql: String(decoding: PackageResources._006_webhooks_sql, as: UTF8.self)),
        Migration(version: 7, name: "driver_feed", sql: String(decoding: PackageResources._007_driver_feed_sql, as: UTF8.self)),
        Migration(version: 8, name: "idle_transactions", sql: String(decoding: PackageResources._008_idle_transactions_sql, as: UTF8.self)),
        Migration(version: 9, name: "read_model_storage", sql: String(decoding: PackageResources._009_read_model_storage_sql, as: UTF8.self)),
        Migration(version: 10, name: "read_model_json", sql: String(decoding: PackageResources._010_read_model_json_sql, as: UTF8.self)),
        Migration(version: 11, name: "retention", sql: String(decoding: PackageResources._011_retention_sql, as: UTF8.self)),
        Migration(version: 12, name: "fleet_record_column", sql: String(decoding: PackageResources._012_fleet_record_column_sql, as: UTF8.self)),
        Migration(version: 13, name: "read_model_text", sql: String(decoding: PackageResources._013_read_model_text_sql, as: UTF8.self)),
    ]
}
