#!/usr/bin/env python3
"""Drives one trip through Waymark's Fleet Engine REST API with the official message types.

Request bodies are built with the `google-maps-fleetengine` types and serialized the way a proto3
JSON client does (lowerCamelCase, enum names, no default-valued fields); one request uses numeric
enums with `$alt=json;enum-encoding=int`, as GAPIC REST clients send. Every Trip, Vehicle and
response message that comes back is parsed with the official types, unknown fields rejected, and
checked against the response schemas of api/openapi.json.

Environment:
  WAYMARK_URL       base URL of the server, e.g. http://127.0.0.1:8080 (required unless dry run)
  WAYMARK_TOKEN     a server-role bearer JWT for WAYMARK_PROVIDER (required unless dry run)
  WAYMARK_PROVIDER  the provider the token is for (default: waymark-test)
  WAYMARK_DRY_RUN   1: print every request (and validate its body against the spec), send nothing
  WAYMARK_OPENAPI   the OpenAPI document to check bodies against (default: api/openapi.json of this
                    checkout; set it to an empty string to skip those checks)
  WAYMARK_RUN_ID    suffix of the IDs created (default: derived from the clock; "dry-run" in dry runs)
  WAYMARK_CONSISTENCY_SECONDS  how long reads may lag behind writes (default 5): checks that read
                    what an earlier call wrote are retried for that long before they fail

Prints one line per step; exits 1 with a message on the first failure (2 on a usage error).
Checks marked "warn" (values the server derives, such as remaining waypoints) print a warning line
instead of failing.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Callable, Optional

from google.maps import fleetengine_v1 as fe
from google.type import latlng_pb2

# ------------------------------------------------------------------------------------------ setup

DRY_RUN = os.environ.get("WAYMARK_DRY_RUN", "") not in ("", "0", "false", "no")
BASE_URL = os.environ.get("WAYMARK_URL", "").rstrip("/")
TOKEN = os.environ.get("WAYMARK_TOKEN", "")
PROVIDER = os.environ.get("WAYMARK_PROVIDER", "waymark-test")
CONSISTENCY_SECONDS = float(os.environ.get("WAYMARK_CONSISTENCY_SECONDS", "5"))
DEFAULT_SPEC = Path(__file__).resolve().parent.parent.parent / "api" / "openapi.json"
SPEC_PATH = os.environ.get("WAYMARK_OPENAPI", str(DEFAULT_SPEC))

if DRY_RUN:
    RUN_ID = os.environ.get("WAYMARK_RUN_ID", "dry-run")
    NOW = datetime.datetime(2024, 5, 1, 12, 0, 0, 500000, tzinfo=datetime.timezone.utc)
else:
    RUN_ID = os.environ.get("WAYMARK_RUN_ID", format(time.time_ns() // 1000, "x"))
    NOW = datetime.datetime.now(datetime.timezone.utc)

VEHICLE_ID = f"shape-v-{RUN_ID}"
TRIP_ID = f"shape-t-{RUN_ID}"
VEHICLE_NAME = f"providers/{PROVIDER}/vehicles/{VEHICLE_ID}"
TRIP_NAME = f"providers/{PROVIDER}/trips/{TRIP_ID}"

# A place of its own for every run, so that searches near it find this run's vehicle first.
_seed = int.from_bytes(hashlib.sha256(RUN_ID.encode()).digest()[:8], "big")
HOME_LAT = round(-50 + (_seed % 100_000) / 1000.0, 6)  # -50 .. 50
HOME_LNG = round(-170 + ((_seed >> 20) % 340_000) / 1000.0, 6)  # -170 .. 170

TS = fe.TripStatus
VS = fe.VehicleState
TT = fe.TripType
CAT = fe.Vehicle.VehicleType.Category

# The fields JOURNEY_SHARING_V1S may populate (fleet-engine.md section 3.3).
JOURNEY_SHARING_FIELDS = {
    "name", "vehicleId", "tripStatus", "tripType", "numberOfPassengers", "pickupPoint", "actualPickupPoint",
    "pickupTime", "intermediateDestinations", "intermediateDestinationsVersion", "intermediateDestinationIndex",
    "dropoffPoint", "actualDropoffPoint", "dropoffTime", "remainingWaypoints", "lastLocation", "view",
}


class Failure(Exception):
    pass


def say(status: str, step: str, detail: str = "") -> None:
    print(f"{status:<4} {step}" + (f": {detail}" if detail else ""), flush=True)


def fail(step: str, message: str, response_text: Optional[str] = None) -> None:
    text = message
    if response_text is not None:
        shown = response_text if len(response_text) <= 2000 else response_text[:2000] + "..."
        text += f"\n     response body: {shown}"
    raise Failure(f"{step}: {text}")


# ----------------------------------------------------------------------------- serialization

def to_json(message: Any, integer_enums: bool = False) -> str:
    """proto3 JSON as a REST client sends it: lowerCamelCase names, enum names (or numbers when
    integer_enums), and no field that holds its default value."""
    kwargs: dict[str, Any] = dict(
        use_integers_for_enums=integer_enums,
        preserving_proto_field_name=False,
        indent=None,
    )
    # proto-plus 1.24+ (protobuf 5+) renamed including_default_value_fields to
    # always_print_fields_with_no_presence and defaults it to True when neither is given.
    try:
        return type(message).to_json(message, always_print_fields_with_no_presence=False, **kwargs)
    except TypeError:
        return type(message).to_json(message, including_default_value_fields=False, **kwargs)


def latlng(lat: float, lng: float) -> latlng_pb2.LatLng:
    return latlng_pb2.LatLng(latitude=lat, longitude=lng)


def offset(lat: float, lng: float, north_m: float, east_m: float) -> tuple[float, float]:
    dlat = north_m / 111_320.0
    dlng = east_m / (111_320.0 * math.cos(math.radians(lat)))
    return round(lat + dlat, 7), round(lng + dlng, 7)


def haversine_m(a: tuple[float, float], b: tuple[float, float]) -> float:
    lat1, lng1, lat2, lng2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lng2 - lng1) / 2) ** 2
    return 2 * 6_371_008.8 * math.asin(math.sqrt(h))


# ----------------------------------------------------------------------------- the OpenAPI side


class Spec:
    """Request and response schemas of api/openapi.json, by operationId."""

    def __init__(self, path: str):
        self.document: Optional[dict] = None
        self.note = "not checked against the OpenAPI document"
        if not path:
            return
        try:
            import jsonschema  # noqa: F401 (shipped with schemathesis and openapi-spec-validator)
        except ImportError:
            self.note = "jsonschema is not installed: bodies not checked against the OpenAPI document"
            return
        with open(path, encoding="utf-8") as handle:
            self.document = json.load(handle)
        self.operations = {}
        for item in self.document["paths"].values():
            for method, operation in item.items():
                if isinstance(operation, dict) and "operationId" in operation:
                    self.operations[operation["operationId"]] = operation
        self.note = f"bodies checked against {path}"

    def _validator(self, schema: dict):
        import jsonschema

        root = dict(schema)
        root["components"] = self.document["components"]
        return jsonschema.Draft202012Validator(root, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)

    def _check(self, schema: dict, instance: Any) -> Optional[str]:
        errors = sorted(self._validator(schema).iter_errors(instance), key=lambda e: list(e.absolute_path))
        if not errors:
            return None
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(root)"
        return f"{len(errors)} schema violation(s); first at {where}: {first.message[:300]}"

    def check_request(self, operation_id: str, body: Any) -> Optional[str]:
        if self.document is None:
            return None
        schema = self.operations[operation_id]["requestBody"]["content"]["application/json"]["schema"]
        return self._check(schema, body)

    def check_response(self, operation_id: str, status: int, body: Any) -> Optional[str]:
        if self.document is None:
            return None
        responses = self.operations[operation_id]["responses"]
        response = responses.get(str(status)) or responses.get("default")
        if response is None:
            return f"the document lists no response {status} for {operation_id}"
        if "$ref" in response:
            response = self.document["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
        schema = response["content"]["application/json"]["schema"]
        return self._check(schema, body)


SPEC = Spec(SPEC_PATH)

# ------------------------------------------------------------------------------------ HTTP


class Response:
    def __init__(self, status: int, text: str, content_type: str):
        self.status = status
        self.text = text
        self.content_type = content_type

    def json(self, step: str) -> Any:
        try:
            return json.loads(self.text)
        except ValueError as error:
            fail(step, f"response is not JSON ({error})", self.text)


def request(step: str, operation_id: str, method: str, path: str, query: Optional[list[tuple[str, str]]] = None,
            body: Optional[str] = None, authorized: bool = True) -> Optional[Response]:
    """Sends one request; returns None in a dry run. The body is checked against the document first."""
    url = path
    if query:
        url += "?" + urllib.parse.urlencode(query, doseq=True)
    if body is not None and operation_id:
        problem = SPEC.check_request(operation_id, json.loads(body))
        if problem:
            fail(step, f"the request body the official types produced does not match the OpenAPI request schema: {problem}\n     body: {body}")
    if DRY_RUN:
        say("dry", step, f"{method} {url}" + (f"\n     {body}" if body is not None else ""))
        return None
    headers = {"Accept": "application/json"}
    if authorized:
        headers["Authorization"] = f"Bearer {TOKEN}"
    data = None
    if body is not None:
        data = body.encode("utf-8")
        headers["Content-Type"] = "application/json"
    http_request = urllib.request.Request(BASE_URL + url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(http_request, timeout=30) as reply:
            return Response(reply.status, reply.read().decode("utf-8"), reply.headers.get("Content-Type", ""))
    except urllib.error.HTTPError as error:
        return Response(error.code, error.read().decode("utf-8", "replace"), error.headers.get("Content-Type", ""))
    except (urllib.error.URLError, OSError) as error:
        fail(step, f"{method} {BASE_URL}{url}: {error}")
    return None  # unreachable


def expect_status(step: str, response: Response, status: int) -> None:
    if response.status != status:
        fail(step, f"HTTP {response.status}, expected {status}", response.text)
    if not response.content_type.split(";")[0].strip().lower() == "application/json":
        fail(step, f"Content-Type is {response.content_type!r}, expected application/json", response.text)


def parse(step: str, message_type: Any, response: Response, operation_id: str, integer_enums: bool = False) -> Any:
    """Parses with the official type, unknown fields rejected, and checks the response schema."""
    try:
        message = message_type.from_json(response.text, ignore_unknown_fields=False)
    except Exception as error:  # json_format.ParseError and friends
        fail(step, f"the official {message_type.__name__} type rejects the response: {error}", response.text)
    if not integer_enums:  # the document describes responses with enum names
        problem = SPEC.check_response(operation_id, response.status, response.json(step))
        if problem:
            fail(step, f"response does not match the OpenAPI response schema: {problem}", response.text)
    return message


def expect_error(step: str, response: Response, http_status: int, statuses: tuple[str, ...], operation_id: str) -> None:
    if response.status != http_status:
        fail(step, f"HTTP {response.status}, expected {http_status}", response.text)
    body = response.json(step)
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict) or error.get("code") != http_status or error.get("status") not in statuses:
        fail(step, f'expected {{"error": {{"code": {http_status}, "status": one of {list(statuses)}, "message": ...}}}}', response.text)
    if not isinstance(error.get("message"), str):
        fail(step, "error.message is not a string", response.text)
    problem = SPEC.check_response(operation_id, response.status, body)
    if problem:
        fail(step, f"error body does not match the OpenAPI response schema: {problem}", response.text)


def check(step: str, condition: bool, message: str, response: Optional[Response] = None) -> None:
    if not condition:
        fail(step, message, response.text if response is not None else None)


WARNINGS: list[str] = []
CREATED: list[str] = []  # resource names this run created and has not deleted


def soft(step: str, condition: bool, message: str) -> None:
    if not condition:
        WARNINGS.append(f"{step}: {message}")
        say("warn", step, message)


def eventually(step: str, attempt: Callable[[], Optional[str]]) -> None:
    """Retries attempt() (which returns None when satisfied, else why not) for CONSISTENCY_SECONDS."""
    deadline = time.monotonic() + CONSISTENCY_SECONDS
    while True:
        problem = attempt()
        if problem is None:
            return
        if time.monotonic() >= deadline:
            fail(step, f"{problem} (still after {CONSISTENCY_SECONDS:g} s)")
        time.sleep(0.25)


def read(step: str, operation_id: str, path: str, query: Optional[list[tuple[str, str]]],
         ready: Callable[[Response], Optional[str]]) -> Optional[Response]:
    """GETs path until ready(response) returns None (reads may lag behind writes); None in a dry run."""
    if DRY_RUN:
        return request(step, operation_id, "GET", path, query)
    last: list[Response] = []

    def attempt() -> Optional[str]:
        response = request(step, operation_id, "GET", path, query)
        last[:] = [response]
        return ready(response)

    eventually(step, attempt)
    return last[0]


def trip_in(status: int) -> Callable[[Response], Optional[str]]:
    def ready(response: Response) -> Optional[str]:
        if response.status != 200:
            return f"HTTP {response.status} {response.text[:300]}"
        got = json.loads(response.text).get("tripStatus")
        return None if got == TS(status).name else f"tripStatus is {got!r}, expected {TS(status).name}"
    return ready


def http_status(status: int) -> Callable[[Response], Optional[str]]:
    def ready(response: Response) -> Optional[str]:
        return None if response.status == status else f"HTTP {response.status}, expected {status}: {response.text[:300]}"
    return ready


# ------------------------------------------------------------------------------------ steps

P = f"/v1/providers/{urllib.parse.quote(PROVIDER, safe='')}"
VEHICLE_PATH = f"{P}/vehicles/{urllib.parse.quote(VEHICLE_ID, safe='')}"
TRIP_PATH = f"{P}/trips/{urllib.parse.quote(TRIP_ID, safe='')}"

PICKUP = offset(HOME_LAT, HOME_LNG, 150, 80)
DROPOFF = offset(HOME_LAT, HOME_LNG, 900, -600)


def operations_endpoints() -> None:
    step = "GET /healthz"
    response = request(step, "", "GET", "/healthz", authorized=False)
    if response is not None:
        expect_status(step, response, 200)
        check(step, response.json(step) == {"status": "ok"}, 'expected {"status":"ok"}', response)
        say("ok", step)

    step = "GET /readyz"

    def ready() -> Optional[str]:
        reply = request(step, "", "GET", "/readyz", authorized=False)
        if reply is None or (reply.status == 200 and reply.json(step).get("status") == "ready"):
            return None
        return f"HTTP {reply.status} {reply.text[:300]}"

    eventually(step, ready)
    if not DRY_RUN:
        say("ok", step)

    step = "GET /openapi.json"
    response = request(step, "", "GET", "/openapi.json", authorized=False)
    if response is not None:
        expect_status(step, response, 200)
        if SPEC.document is not None:
            check(step, response.json(step) == SPEC.document,
                  f"the served document differs from {SPEC_PATH} (rebuild the server?)")
        say("ok", step)


def unauthenticated() -> None:
    step = "GetVehicle without a token is 401"
    response = request(step, "GetVehicle", "GET", VEHICLE_PATH, authorized=False)
    if response is not None:
        expect_error(step, response, 401, ("UNAUTHENTICATED",), "GetVehicle")
        say("ok", step)


def vehicle_body() -> fe.Vehicle:
    return fe.Vehicle(
        vehicle_state=VS.ONLINE,
        supported_trip_types=[TT.EXCLUSIVE],
        maximum_capacity=4,
        vehicle_type=fe.Vehicle.VehicleType(category=CAT.AUTO),
        attributes=[
            fe.VehicleAttribute(key="color", string_value="blue"),
            fe.VehicleAttribute(key="wheelchair", bool_value=True),
            fe.VehicleAttribute(key="seats", number_value=4),
            fe.VehicleAttribute(key="run", string_value=RUN_ID),
        ],
        license_plate=fe.LicensePlate(country_code="US", last_character="7"),
        back_to_back_enabled=False,  # a default: not serialized
    )


def check_vehicle(step: str, vehicle: fe.Vehicle, response: Response, state: int = VS.ONLINE) -> None:
    check(step, vehicle.name == VEHICLE_NAME, f"name is {vehicle.name!r}, expected {VEHICLE_NAME!r}", response)
    check(step, vehicle.vehicle_state == state, f"vehicleState is {vehicle.vehicle_state.name}, expected {VS(state).name}", response)
    check(step, list(vehicle.supported_trip_types) == [TT.EXCLUSIVE], "supportedTripTypes is not [EXCLUSIVE]", response)
    check(step, vehicle.maximum_capacity == 4, f"maximumCapacity is {vehicle.maximum_capacity}, expected 4", response)
    check(step, vehicle.vehicle_type.category == CAT.AUTO, "vehicleType.category is not AUTO", response)


def create_vehicle() -> None:
    step = "CreateVehicle"
    body = to_json(vehicle_body())
    response = request(step, "CreateVehicle", "POST", f"{P}/vehicles", [("vehicleId", VEHICLE_ID)], body)
    if response is not None:
        expect_status(step, response, 200)
        vehicle = parse(step, fe.Vehicle, response, "CreateVehicle")
        CREATED.append(VEHICLE_NAME)
        check_vehicle(step, vehicle, response)
        attributes = {a.key: a for a in vehicle.attributes}
        check(step, set(attributes) == {"color", "wheelchair", "seats", "run"}, f"attributes are {sorted(attributes)}", response)
        check(step, attributes["color"].string_value == "blue", "attribute color is not stringValue blue", response)
        check(step, attributes["wheelchair"].bool_value is True, "attribute wheelchair is not boolValue true", response)
        check(step, attributes["seats"].number_value == 4, "attribute seats is not numberValue 4", response)
        check(step, vehicle.license_plate.country_code == "US", "licensePlate.countryCode is not US", response)
        say("ok", step, VEHICLE_NAME)

    step = "CreateVehicle again is 409"
    response = request(step, "CreateVehicle", "POST", f"{P}/vehicles", [("vehicleId", VEHICLE_ID)], body)
    if response is not None:
        expect_error(step, response, 409, ("ALREADY_EXISTS",), "CreateVehicle")
        say("ok", step)


def get_vehicle() -> None:
    step = "GetVehicle"
    response = read(step, "GetVehicle", VEHICLE_PATH, None, http_status(200))
    if response is not None:
        expect_status(step, response, 200)
        check_vehicle(step, parse(step, fe.Vehicle, response, "GetVehicle"), response)
        say("ok", step)


def update_vehicle_location() -> None:
    step = "UpdateVehicle lastLocation"
    body = to_json(fe.Vehicle(last_location=fe.VehicleLocation(
        location=latlng(HOME_LAT, HOME_LNG),
        heading=90,
        speed=8.5,
        latlng_accuracy=4.5,
        location_sensor=fe.LocationSensor.GPS,
        update_time=NOW,
    )))
    response = request(step, "UpdateVehicle", "PUT", VEHICLE_PATH, [("updateMask", "lastLocation")], body)
    if response is not None:
        expect_status(step, response, 200)
        vehicle = parse(step, fe.Vehicle, response, "UpdateVehicle")
        check_vehicle(step, vehicle, response)
        location = vehicle.last_location
        check(step, abs(location.location.latitude - HOME_LAT) < 1e-7 and abs(location.location.longitude - HOME_LNG) < 1e-7,
              f"lastLocation.location is {location.location.latitude},{location.location.longitude}, expected {HOME_LAT},{HOME_LNG}", response)
        check(step, "heading" in json.loads(response.text)["lastLocation"] and location.heading == 90,
              "lastLocation.heading is not 90", response)
        soft(step, "serverTime" in json.loads(response.text)["lastLocation"], "lastLocation.serverTime is not set")
        say("ok", step)


def update_vehicle_state() -> None:
    for state in (VS.OFFLINE, VS.ONLINE):
        step = f"UpdateVehicle vehicle_state={VS(state).name} (snake_case mask)"
        body = to_json(fe.Vehicle(vehicle_state=state))
        response = request(step, "UpdateVehicle", "PUT", VEHICLE_PATH, [("updateMask", "vehicle_state")], body)
        if response is not None:
            expect_status(step, response, 200)
            vehicle = parse(step, fe.Vehicle, response, "UpdateVehicle")
            check_vehicle(step, vehicle, response, state)
            check(step, abs(vehicle.last_location.location.latitude - HOME_LAT) < 1e-7,
                  "lastLocation changed although the mask did not name it", response)
            say("ok", step)


def update_vehicle_attributes() -> None:
    step = "UpdateVehicleAttributes"
    body = to_json(fe.UpdateVehicleAttributesRequest(attributes=[
        fe.VehicleAttribute(key="color", string_value="red"),
        fe.VehicleAttribute(key="trunk", string_value="large"),
    ]))
    response = request(step, "UpdateVehicleAttributes", "POST", f"{VEHICLE_PATH}:updateAttributes", None, body)
    if response is not None:
        expect_status(step, response, 200)
        reply = parse(step, fe.UpdateVehicleAttributesResponse, response, "UpdateVehicleAttributes")
        attributes = {a.key: a for a in reply.attributes}
        check(step, set(attributes) == {"color", "wheelchair", "seats", "run", "trunk"},
              f"attributes after the merge are {sorted(attributes)}, expected color, run, seats, trunk, wheelchair", response)
        check(step, attributes["color"].string_value == "red", "color was not replaced by red", response)
        say("ok", step)


def list_vehicles() -> None:
    step = "ListVehicles vehicleTypeCategories=AUTO"
    query = [("vehicleTypeCategories", "AUTO"), ("pageSize", "100")]
    if DRY_RUN:
        request(step, "ListVehicles", "GET", f"{P}/vehicles", query)
        return

    def attempt() -> Optional[str]:
        token = ""
        for _ in range(50):
            page = query + ([("pageToken", token)] if token else [])
            response = request(step, "ListVehicles", "GET", f"{P}/vehicles", page)
            expect_status(step, response, 200)
            reply = parse(step, fe.ListVehiclesResponse, response, "ListVehicles")
            raw = response.json(step)
            check(step, isinstance(raw.get("totalSize"), str),
                  f"totalSize must be an int64 as a JSON string, got {raw.get('totalSize')!r}", response)
            check(step, int(raw["totalSize"]) >= 1, "totalSize is 0 although a vehicle exists", response)
            for vehicle in reply.vehicles:
                check(step, vehicle.vehicle_type.category == CAT.AUTO, f"{vehicle.name} is not an AUTO", response)
                if vehicle.name == VEHICLE_NAME:
                    return None
            token = reply.next_page_token
            if not token:
                return f"{VEHICLE_NAME} is not listed"
        return "more than 50 pages"

    eventually(step, attempt)
    say("ok", step)


def search_vehicles() -> None:
    step = "SearchVehicles"
    body = to_json(fe.SearchVehiclesRequest(
        pickup_point=fe.TerminalLocation(point=latlng(*PICKUP)),
        pickup_radius_meters=2000,
        count=5,
        minimum_capacity=1,
        trip_types=[TT.EXCLUSIVE],
        vehicle_types=[fe.Vehicle.VehicleType(category=CAT.AUTO)],
        order_by=fe.SearchVehiclesRequest.VehicleMatchOrder.PICKUP_POINT_STRAIGHT_DISTANCE,
    ))
    if DRY_RUN:
        request(step, "SearchVehicles", "POST", f"{P}/vehicles:search", None, body)
        return
    found: list[fe.VehicleMatch] = []

    def attempt() -> Optional[str]:
        response = request(step, "SearchVehicles", "POST", f"{P}/vehicles:search", None, body)
        expect_status(step, response, 200)
        reply = parse(step, fe.SearchVehiclesResponse, response, "SearchVehicles")
        check(step, len(reply.matches) <= 5, f"{len(reply.matches)} matches for count 5", response)
        for match in reply.matches:
            if match.vehicle.name == VEHICLE_NAME:
                check(step, match.trip_type == TT.EXCLUSIVE, "match tripType is not EXCLUSIVE", response)
                found.append(match)
                return None
        return f"{VEHICLE_NAME} is not among {len(reply.matches)} matches"

    eventually(step, attempt)
    distance = haversine_m((HOME_LAT, HOME_LNG), PICKUP)
    straight = found[0].vehicle_pickup_straight_line_distance_meters
    soft(step, abs(straight - distance) <= max(25.0, 0.1 * distance),
         f"vehiclePickupStraightLineDistanceMeters is {straight}, the straight-line distance is {distance:.0f} m")
    say("ok", step)


def create_trip() -> None:
    step = "CreateTrip with an unknown field is 400"
    bogus = json.dumps({"tripType": "EXCLUSIVE", "pickupPoint": {"point": {"latitude": PICKUP[0], "longitude": PICKUP[1]}}, "noSuchField": 1})
    response = request(step, "", "POST", f"{P}/trips", [("tripId", TRIP_ID)], bogus)
    if response is not None:
        expect_error(step, response, 400, ("INVALID_ARGUMENT",), "CreateTrip")
        say("ok", step)

    step = "CreateTrip"
    body = to_json(fe.Trip(
        trip_type=TT.EXCLUSIVE,
        pickup_point=fe.TerminalLocation(point=latlng(*PICKUP)),
        dropoff_point=fe.TerminalLocation(point=latlng(*DROPOFF)),
        number_of_passengers=1,
        attributes=[fe.TripAttribute(key="run", string_value=RUN_ID)],
    ))
    response = request(step, "CreateTrip", "POST", f"{P}/trips", [("tripId", TRIP_ID)], body)
    if response is not None:
        expect_status(step, response, 200)
        CREATED.append(TRIP_NAME)
        trip = parse(step, fe.Trip, response, "CreateTrip")
        check(step, trip.name == TRIP_NAME, f"name is {trip.name!r}, expected {TRIP_NAME!r}", response)
        check(step, trip.trip_status == TS.NEW, f"tripStatus is {trip.trip_status.name}, expected NEW", response)
        check(step, trip.trip_type == TT.EXCLUSIVE, "tripType is not EXCLUSIVE", response)
        check(step, abs(trip.pickup_point.point.latitude - PICKUP[0]) < 1e-7, "pickupPoint differs from the request", response)
        check(step, abs(trip.dropoff_point.point.longitude - DROPOFF[1]) < 1e-7, "dropoffPoint differs from the request", response)
        check(step, trip.number_of_passengers == 1, "numberOfPassengers is not 1", response)
        check(step, not trip.vehicle_id, "a new trip has a vehicleId", response)
        say("ok", step, TRIP_NAME)


def update_trip(step: str, mask: str, trip: fe.Trip, integer_enums: bool = False) -> Optional[tuple[fe.Trip, Response]]:
    query = [("updateMask", mask)]
    if integer_enums:
        query.append(("$alt", "json;enum-encoding=int"))
    body = to_json(trip, integer_enums=integer_enums)
    response = request(step, "UpdateTrip", "PUT", TRIP_PATH, query, body)
    if response is None:
        return None
    expect_status(step, response, 200)
    updated = parse(step, fe.Trip, response, "UpdateTrip", integer_enums=integer_enums)
    check(step, updated.name == TRIP_NAME, f"name is {updated.name!r}", response)
    return updated, response


def assign_trip() -> None:
    step = "UpdateTrip vehicleId (assign)"
    result = update_trip(step, "vehicleId", fe.Trip(vehicle_id=VEHICLE_ID))
    if result is not None:
        trip, response = result
        check(step, trip.vehicle_id == VEHICLE_ID, f"vehicleId is {trip.vehicle_id!r}, expected {VEHICLE_ID!r}", response)
        check(step, trip.trip_status == TS.NEW, "assigning changed tripStatus", response)
        say("ok", step)

        step = "GetVehicle currentTrips"
        def attempt() -> Optional[str]:
            reply = request(step, "GetVehicle", "GET", VEHICLE_PATH)
            expect_status(step, reply, 200)
            vehicle = parse(step, fe.Vehicle, reply, "GetVehicle")
            return None if TRIP_ID in vehicle.current_trips else f"currentTrips is {list(vehicle.current_trips)}"
        try:
            eventually(step, attempt)
            say("ok", step)
        except Failure as failure:
            soft(step, False, str(failure).split(": ", 1)[1])


def start_trip_integer_enums() -> None:
    step = "UpdateTrip tripStatus=ENROUTE_TO_PICKUP ($alt=json;enum-encoding=int)"
    result = update_trip(step, "tripStatus", fe.Trip(trip_status=TS.ENROUTE_TO_PICKUP), integer_enums=True)
    if result is not None:
        trip, response = result
        raw = response.json(step)
        check(step, raw.get("tripStatus") == int(TS.ENROUTE_TO_PICKUP),
              f"with enum-encoding=int tripStatus must be the number 2, got {raw.get('tripStatus')!r}", response)
        check(step, raw.get("tripType") == int(TT.EXCLUSIVE),
              f"with enum-encoding=int tripType must be the number 2, got {raw.get('tripType')!r}", response)
        check(step, trip.vehicle_id == VEHICLE_ID, "vehicleId was lost", response)
        say("ok", step)


def get_trip() -> None:
    step = "GetTrip view=SDK"
    response = read(step, "GetTrip", TRIP_PATH, [("view", "SDK")], trip_in(TS.ENROUTE_TO_PICKUP))
    if response is not None:
        expect_status(step, response, 200)
        trip = parse(step, fe.Trip, response, "GetTrip")
        raw = response.json(step)
        check(step, trip.name == TRIP_NAME and trip.trip_status == TS.ENROUTE_TO_PICKUP and trip.vehicle_id == VEHICLE_ID,
              "expected the assigned trip in ENROUTE_TO_PICKUP", response)
        check(step, "vehicleWaypoints" not in raw, "GetTrip must never return vehicleWaypoints", response)
        kinds = [(w.trip_id, w.waypoint_type) for w in trip.remaining_waypoints]
        soft(step, (TRIP_ID, fe.WaypointType.PICKUP_WAYPOINT_TYPE) in kinds,
             f"remainingWaypoints lacks this trip's pickup: {[(t, fe.WaypointType(k).name) for t, k in kinds]}")
        soft(step, "lastLocation" in raw, "lastLocation of the assigned vehicle is missing")
        say("ok", step)

    step = "GetTrip view=JOURNEY_SHARING_V1S"
    response = read(step, "GetTrip", TRIP_PATH, [("view", "JOURNEY_SHARING_V1S")], trip_in(TS.ENROUTE_TO_PICKUP))
    if response is not None:
        expect_status(step, response, 200)
        trip = parse(step, fe.Trip, response, "GetTrip")
        raw = response.json(step)
        check(step, trip.name == TRIP_NAME and trip.trip_status == TS.ENROUTE_TO_PICKUP, "expected the trip in ENROUTE_TO_PICKUP", response)
        extra = sorted(set(raw) - JOURNEY_SHARING_FIELDS)
        check(step, not extra, f"fields outside the JOURNEY_SHARING_V1S view: {extra}", response)
        say("ok", step)


def search_trips() -> None:
    step = "SearchTrips vehicleId"
    body = to_json(fe.SearchTripsRequest(vehicle_id=VEHICLE_ID, page_size=50))
    if DRY_RUN:
        request(step, "SearchTrips", "POST", f"{P}/trips:search", None, body)
        return

    def attempt() -> Optional[str]:
        response = request(step, "SearchTrips", "POST", f"{P}/trips:search", None, body)
        expect_status(step, response, 200)
        reply = parse(step, fe.SearchTripsResponse, response, "SearchTrips")
        for trip in reply.trips:
            check(step, trip.vehicle_id == VEHICLE_ID, f"{trip.name} is assigned to {trip.vehicle_id!r}", response)
        names = [trip.name for trip in reply.trips]
        return None if TRIP_NAME in names else f"{TRIP_NAME} not in {names}"

    eventually(step, attempt)
    say("ok", step)


def finish_trip() -> None:
    step = "DeleteTrip while active is 400"
    response = request(step, "DeleteTrip", "DELETE", TRIP_PATH)
    if response is not None:
        expect_error(step, response, 400, ("FAILED_PRECONDITION",), "DeleteTrip")
        say("ok", step)

    for status in (TS.ARRIVED_AT_PICKUP, TS.ENROUTE_TO_DROPOFF, TS.COMPLETE):
        step = f"UpdateTrip tripStatus={TS(status).name}"
        result = update_trip(step, "tripStatus", fe.Trip(trip_status=status))
        if result is not None:
            trip, response = result
            check(step, trip.trip_status == status, f"tripStatus is {trip.trip_status.name}", response)
            say("ok", step)

    step = "UpdateTrip COMPLETE -> ENROUTE_TO_PICKUP is 400"
    response = request(step, "UpdateTrip", "PUT", TRIP_PATH, [("updateMask", "tripStatus")],
                       to_json(fe.Trip(trip_status=TS.ENROUTE_TO_PICKUP)))
    if response is not None:
        expect_error(step, response, 400, ("FAILED_PRECONDITION", "INVALID_ARGUMENT"), "UpdateTrip")
        say("ok", step)

    step = "DeleteTrip"
    response = request(step, "DeleteTrip", "DELETE", TRIP_PATH)
    if response is not None:
        expect_status(step, response, 200)
        check(step, response.json(step) == {}, "expected {}", response)
        CREATED.remove(TRIP_NAME)
        say("ok", step)

        step = "GetTrip after delete is 404"
        response = read(step, "GetTrip", TRIP_PATH, None, http_status(404))
        expect_error(step, response, 404, ("NOT_FOUND",), "GetTrip")
        say("ok", step)


def delete_vehicle() -> None:
    step = "DeleteVehicle"
    response = request(step, "DeleteVehicle", "DELETE", VEHICLE_PATH)
    if response is not None:
        expect_status(step, response, 200)
        check(step, response.json(step) == {}, "expected {}", response)
        CREATED.remove(VEHICLE_NAME)
        say("ok", step)

        step = "GetVehicle after delete is 404"
        response = read(step, "GetVehicle", VEHICLE_PATH, None, http_status(404))
        expect_error(step, response, 404, ("NOT_FOUND",), "GetVehicle")
        say("ok", step)


def main() -> int:
    if not DRY_RUN and (not BASE_URL or not TOKEN):
        print("fleetengine_shapes: set WAYMARK_URL and WAYMARK_TOKEN (or WAYMARK_DRY_RUN=1)", file=sys.stderr)
        return 2
    target = "dry run, nothing sent" if DRY_RUN else BASE_URL
    print(f"fleetengine_shapes: provider {PROVIDER}, run {RUN_ID}, {target}; {SPEC.note}", flush=True)
    try:
        operations_endpoints()
        unauthenticated()
        create_vehicle()
        get_vehicle()
        update_vehicle_location()
        update_vehicle_state()
        update_vehicle_attributes()
        list_vehicles()
        search_vehicles()
        create_trip()
        assign_trip()
        start_trip_integer_enums()
        get_trip()
        search_trips()
        finish_trip()
        delete_vehicle()
    except Failure as failure:
        print(f"FAIL {failure}", flush=True)
        left = f"; left behind: {', '.join(CREATED)}" if CREATED else ""
        print(f"fleetengine_shapes: FAILED (run {RUN_ID}{left})", flush=True)
        return 1
    summary = f"{len(WARNINGS)} warning(s)" if WARNINGS else "no warnings"
    print(f"fleetengine_shapes: {'dry run complete' if DRY_RUN else 'all steps passed'}, {summary}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
