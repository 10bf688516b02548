#!/usr/bin/env bash
# Times one location report's snap onto a 100-point and a 10,000-point route segment, old
# against new, in one release run: Geo as at BASE (default 407c2f4, before IndexedPath) built
# as module GeoOld, next to Geo of the working tree, in a throwaway package. Not part of any
# make target; the figures go into docs/performance-notes.md ("Snapping onto long segments").
#
#   scripts/snap-bench.sh [BASE]
#
# Each case checks that the new snap equals the old one bit for bit and stops if not.
set -euo pipefail

cd "$(dirname "$0")/.."
base="${1:-407c2f4}"
work="${SNAP_BENCH_DIR:-${TMPDIR:-/tmp}/waymark-snap-bench}"
rm -rf "$work"
mkdir -p "$work/Sources/GeoOld" "$work/Sources/Geo" "$work/Sources/SnapBench"
mkdir -p "$work/base"
git archive "$base" Sources/Geo | tar -x -C "$work/base"
cp "$work/base/Sources/Geo/"*.swift "$work/Sources/GeoOld/"
cp Sources/Geo/*.swift "$work/Sources/Geo/"
cat > "$work/Package.swift" <<'SWIFT'
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "snapbench",
    platforms: [.macOS(.v15)],
    targets: [
        .target(name: "GeoOld"),
        .target(name: "Geo"),
        .executableTarget(name: "SnapBench", dependencies: ["Geo", "GeoOld"]),
    ]
)
SWIFT
cat > "$work/Sources/SnapBench/main.swift" <<'SWIFT'
import Foundation
import Geo
import GeoOld

/// A road-like route of `count` points, 5-40 m apart, turning at most 15° per vertex (fixed seed).
func route(_ count: Int) -> [Geo.LatLng] {
    var state: UInt64 = 0x5EED
    func next() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
    var point = Geo.LatLng(uncheckedLatitude: 48.85, longitude: 2.35)
    var heading = 40.0
    var points: [Geo.LatLng] = []
    for _ in 0..<count {
        points.append(point)
        heading = (heading + next() * 30 - 15 + 360).truncatingRemainder(dividingBy: 360)
        point = Geo.Distance.destination(from: point, bearing: heading, meters: 5 + next() * 35)
    }
    return points
}

/// Positions every ~30 m along the route, up to 10 m off it.
func reports(_ path: Geo.Path, count: Int) -> [Geo.LatLng] {
    (0..<count).map { i in
        let along = path.length * Double(i) / Double(count)
        return Geo.Distance.destination(from: path.point(atDistance: along), bearing: Double(i * 67 % 360), meters: Double(i % 11))
    }
}

func measure(_ label: String, reports: Int, _ body: () -> Double) -> Double {
    let clock = ContinuousClock()
    var sink = 0.0
    let start = clock.now
    sink += body()
    let elapsed = clock.now - start
    let micros = Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12
    let perReport = micros / Double(reports)
    print("  \(label): \(String(format: "%.2f", perReport)) µs/report (\(reports) reports, checksum \(String(format: "%.3f", sink)))")
    return perReport
}

for count in [100, 10_000] {
    let points = route(count)
    let encoded = Geo.Polyline.encode(points)
    let path = Geo.Path(try! Geo.Polyline.decode(encoded))
    let n = count == 100 ? 20_000 : 300
    let positions = reports(path, count: n)
    let fresh = String(decoding: Array(encoded.utf8), as: UTF8.self)
    print("\(count) points (\(encoded.utf8.count) bytes encoded), length \(Int(path.length)) m")
    // The journey view before: decode + cumulative distances + scan from the previous snap.
    let old = measure("old, decode + scan from previous snap", reports: n) {
        var previous = 0.0, sum = 0.0
        for p in positions {
            let old = GeoOld.Path(try! GeoOld.Polyline.decode(encoded))
            let s = old.snap(GeoOld.LatLng(uncheckedLatitude: p.latitude, longitude: p.longitude), notBefore: previous)!
            previous = s.distanceAlong
            sum += s.distanceOff
        }
        return sum
    }
    let oldDomain = measure("old, decode + whole-route scan (domain)", reports: n) {
        var sum = 0.0
        for p in positions {
            sum += GeoOld.Path(try! GeoOld.Polyline.decode(encoded)).snap(GeoOld.LatLng(uncheckedLatitude: p.latitude, longitude: p.longitude))!.distanceOff
        }
        return sum
    }
    let m = n * (count == 100 ? 5 : 100)
    let many = (0..<m).map { positions[$0 % n] }
    _ = try! PathCache.shared.path(encoded)
    let new = measure("new, cached + indexed snap from previous snap", reports: m) {
        var previous = 0.0, sum = 0.0
        for (i, p) in many.enumerated() {
            if i % n == 0 { previous = 0 }
            let s = try! PathCache.shared.path(encoded).snap(p, notBefore: previous)!
            previous = s.distanceAlong
            sum += s.distanceOff
        }
        return sum
    }
    let newDomain = measure("new, cached + indexed whole-route snap (domain)", reports: m) {
        var sum = 0.0
        for p in many { sum += try! PathCache.shared.path(encoded).snap(p)!.distanceOff }
        return sum
    }
    _ = measure("new, cached, key a separate copy of the text (full compare)", reports: m) {
        var sum = 0.0
        for p in many { sum += try! PathCache.shared.path(fresh).snap(p)!.distanceOff }
        return sum
    }
    _ = measure("new, cache miss every time (decode + index + snap)", reports: n) {
        var sum = 0.0
        for p in positions { sum += Geo.IndexedPath(Geo.Path(try! Geo.Polyline.decode(encoded))).snap(p)!.distanceOff }
        return sum
    }
    // Same answers, bit for bit, on every report.
    var previous = 0.0
    for p in positions {
        let a = GeoOld.Path(try! GeoOld.Polyline.decode(encoded))
            .snap(GeoOld.LatLng(uncheckedLatitude: p.latitude, longitude: p.longitude), notBefore: previous)!
        let b = try! PathCache.shared.path(encoded).snap(p, notBefore: previous)!
        precondition(a.segmentIndex == b.segmentIndex && a.fraction.bitPattern == b.fraction.bitPattern
            && a.distanceAlong.bitPattern == b.distanceAlong.bitPattern && a.distanceOff.bitPattern == b.distanceOff.bitPattern
            && a.point.latitude.bitPattern == b.point.latitude.bitPattern && a.point.longitude.bitPattern == b.point.longitude.bitPattern,
            "snap differs at \(p)")
        previous = a.distanceAlong
    }
    print("  speed-up: \(String(format: "%.0f", old / new))× (from previous snap), \(String(format: "%.0f", oldDomain / newDomain))× (whole route)")
}
SWIFT
(cd "$work" && swift build -c release >/dev/null && .build/release/SnapBench)
