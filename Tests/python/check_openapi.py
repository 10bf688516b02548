#!/usr/bin/env python3
"""Offline checks of api/openapi.json (no server needed).

1. The document is valid OpenAPI 3.1 (openapi-spec-validator).
2. Schemathesis loads it and can generate a request for every operation.
3. It is formatted canonically: 2-space indent, keys in their written order, one trailing newline,
   so `json.dumps(json.load(f), indent=2) + "\\n"` reproduces it byte for byte.
4. Its schemas cover the official message types of google-maps-fleetengine: every proto field is a
   property of the request (Input) schema under its JSON name, every field but the input-only ones is
   a property of the response schema, and every enum lists exactly the proto's names and numbers.

Usage: check_openapi.py [path/to/openapi.json]   (default: api/openapi.json of this checkout)
Exits 1 with the list of problems when a check fails.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from google.maps import fleetengine_v1 as fe

DEFAULT = Path(__file__).resolve().parent.parent.parent / "api" / "openapi.json"

# proto message -> (response schema, request schema, proto fields never returned)
MESSAGES = {
    fe.Trip: ("Trip", "TripInput", {"actualPickupArrivalPoint", "actualIntermediateDestinationArrivalPoints",
                                    "actualIntermediateDestinations"}),
    fe.Vehicle: ("Vehicle", "VehicleInput", {"pastLocations", "currentRouteSegmentTraffic", "remainingTimeSeconds",
                                             "deviceSettings"}),
    fe.VehicleLocation: ("VehicleLocation", "VehicleLocationInput", {"isGpsSensorEnabled", "timeSinceUpdate",
                                                                     "numStaleUpdates"}),
    fe.TerminalLocation: ("TerminalLocation", "TerminalLocationInput", set()),
    fe.StopLocation: ("StopLocation", "StopLocationInput", {"stopTime"}),
    fe.TripWaypoint: ("TripWaypoint", "TripWaypointInput", set()),
    fe.ConsumableTrafficPolyline: ("ConsumableTrafficPolyline", "ConsumableTrafficPolylineInput", set()),
    fe.SpeedReadingInterval: ("SpeedReadingInterval", "SpeedReadingIntervalInput", set()),
    fe.Vehicle.VehicleType: ("VehicleType", "VehicleTypeInput", set()),
    fe.TerminalPointId: ("TerminalPointId", "TerminalPointId", set()),
    fe.VehicleAttribute: ("VehicleAttribute", "VehicleAttribute", set()),
    fe.TripAttribute: ("TripAttribute", "TripAttribute", set()),
    fe.LicensePlate: ("LicensePlate", "LicensePlate", set()),
    fe.TrafficPolylineData: (None, "TrafficPolylineData", set()),
    fe.VisualTrafficReportPolylineRendering: (None, "VisualTrafficReportPolylineRendering", set()),
    fe.VisualTrafficReportPolylineRendering.RoadStretch: (None, "RoadStretch", set()),
    fe.DeviceSettings: (None, "DeviceSettings", set()),
    fe.BatteryInfo: (None, "BatteryInfo", set()),
    fe.RequestHeader: (None, "RequestHeader", set()),
    fe.VehicleAttributeList: (None, "VehicleAttributeList", set()),
    fe.VehicleMatch: ("VehicleMatch", None, set()),
    fe.Waypoint: ("Waypoint", None, set()),
    fe.SearchTripsRequest: (None, "SearchTripsRequest", {"parent"}),
    fe.SearchTripsResponse: ("SearchTripsResponse", None, set()),
    fe.SearchVehiclesRequest: (None, "SearchVehiclesRequest", {"parent"}),
    fe.SearchVehiclesResponse: ("SearchVehiclesResponse", None, set()),
    fe.ListVehiclesResponse: ("ListVehiclesResponse", None, set()),
    fe.UpdateVehicleAttributesRequest: (None, "UpdateVehicleAttributesRequest", {"name"}),
    fe.UpdateVehicleAttributesResponse: ("UpdateVehicleAttributesResponse", None, set()),
}
# Fields of request messages that travel in the path, not the body.
PATH_FIELDS = {"parent", "name"}

# Waymark's own input-only extension fields of a request schema (documented there; never in a response,
# so the official clients' strict parsers never meet them).
EXTENSIONS = {"TripInput": {"consumerId"}}

ENUMS = {
    "TripStatus": fe.TripStatus, "TripType": fe.TripType, "TripView": fe.TripView, "WaypointType": fe.WaypointType,
    "PolylineFormatType": fe.PolylineFormatType, "VehicleState": fe.VehicleState,
    "NavigationStatus": fe.NavigationStatus, "LocationSensor": fe.LocationSensor,
    "VehicleTypeCategory": fe.Vehicle.VehicleType.Category, "SpeedReadingIntervalSpeed": fe.SpeedReadingInterval.Speed,
    "RoadStretchStyle": fe.VisualTrafficReportPolylineRendering.RoadStretch.Style,
    "VehicleMatchOrder": fe.SearchVehiclesRequest.VehicleMatchOrder,
    "CurrentTripsPresent": fe.SearchVehiclesRequest.CurrentTripsPresent,
    "VehicleMatchType": fe.VehicleMatch.VehicleMatchType, "LocationPowerSaveMode": fe.LocationPowerSaveMode,
    "BatteryStatus": fe.BatteryStatus, "PowerSource": fe.PowerSource,
}


def json_names(message) -> list[str]:
    return [field.json_name for field in message.pb().DESCRIPTOR.fields]


def main() -> int:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    text = path.read_text(encoding="utf-8")
    problems: list[str] = []

    document = json.loads(text)
    if json.dumps(document, indent=2, ensure_ascii=False) + "\n" != text:
        problems.append("formatting: not the canonical 2-space json.dumps output with one trailing newline")

    from openapi_spec_validator import validate

    try:
        validate(document)
    except Exception as error:  # the validator's own error types
        problems.append(f"openapi-spec-validator: {error}")

    import schemathesis
    from hypothesis import HealthCheck, given, settings

    schema = schemathesis.openapi.from_dict(document)
    operations = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1
        generated = []

        @given(operation.as_strategy())
        @settings(max_examples=3, deadline=None, database=None, suppress_health_check=list(HealthCheck))
        def generate(case):
            generated.append(case)

        try:
            generate()
        except Exception as error:
            problems.append(f"schemathesis cannot generate {operation.label}: {error}")
    methods = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}
    documented = sum(1 for item in document["paths"].values() for key in item if key in methods)
    if operations != documented:
        problems.append(f"schemathesis found {operations} operations, the document has {documented}")

    schemas = document["components"]["schemas"]
    for message, (response, request, never_returned) in MESSAGES.items():
        names = json_names(message)
        proto = message.pb().DESCRIPTOR.full_name
        if request is not None:
            properties = set(schemas[request].get("properties", {}))
            missing = [n for n in names if n not in properties and n not in PATH_FIELDS]
            extra = sorted(properties - set(names) - EXTENSIONS.get(request, set()))
            if missing:
                problems.append(f"{request}: fields of {proto} missing: {missing}")
            if extra:
                problems.append(f"{request}: properties that {proto} does not have: {extra}")
            for extension in sorted(EXTENSIONS.get(request, set())):
                if not schemas[request]["properties"].get(extension, {}).get("writeOnly"):
                    problems.append(f"{request}: the extension {extension} must be documented as writeOnly (input only)")
        if response is not None:
            properties = set(schemas[response].get("properties", {}))
            missing = [n for n in names if n not in properties and n not in never_returned]
            leaked = sorted(properties & never_returned)
            extra = sorted(properties - set(names))
            if missing:
                problems.append(f"{response}: fields of {proto} missing: {missing}")
            if leaked:
                problems.append(f"{response}: input-only fields in a response schema: {leaked}")
            if extra:
                problems.append(f"{response}: properties that {proto} does not have: {extra}")

    for name, enum in ENUMS.items():
        members = [(member.name, int(member)) for member in enum]
        schema = schemas[name + "Input"]
        variants = schema["oneOf"]
        if sorted(variants[0]["enum"]) != sorted(m[0] for m in members) or sorted(variants[1]["enum"]) != sorted(m[1] for m in members):
            problems.append(f"{name}Input: does not list the names and numbers of {enum.__name__}")
        unpaired = [f"{n}={v}" for n, v in members if f"{n}={v}" not in schema["description"]]
        if unpaired:
            problems.append(f"{name}Input: description does not pair {unpaired}")
        if name in schemas and sorted(schemas[name]["enum"]) != sorted(m[0] for m in members if m[1] != 0):
            problems.append(f"{name}: response names differ from {enum.__name__} (zero value excluded)")

    if problems:
        print(f"check_openapi: {path}: {len(problems)} problem(s)", file=sys.stderr)
        for problem in problems:
            print(f"  - {problem}", file=sys.stderr)
        return 1
    print(f"check_openapi: {path}: valid OpenAPI 3.1, {operations} operations, schemas match the official types")
    return 0


if __name__ == "__main__":
    sys.exit(main())
