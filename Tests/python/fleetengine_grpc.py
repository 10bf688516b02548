#!/usr/bin/env python3
"""Drives Waymark's gRPC front door with the official `google-maps-fleetengine` client, unchanged.

The clients are built as a fleet operator would (gRPC transport, plaintext local channel, the
bearer token in call credentials) and pointed at Waymark's gRPC port. One scripted session:
vehicles and trips created, a trip assigned and moved through every status including two
intermediate stops, vehicle locations and route segments reported, trips searched and vehicles
listed with paging, trips read in both views (and compared with the REST answer for the same
trip), deletes, and the unhappy paths raising the client's own exception classes.

Environment:
  WAYMARK_GRPC      host:port of the gRPC server (required)
  WAYMARK_URL       base URL of the REST server, for the gRPC/REST comparison (required)
  WAYMARK_PROVIDER  the provider of the tokens
  WAYMARK_TOKEN     server-role JWT
  WAYMARK_DRIVER_TOKEN    driver-role JWT for vehicle "{run}-v2" (which never gets a trip)
  WAYMARK_CONSUMER_TOKEN  consumer-role JWT for trip "{run}-t1"
  WAYMARK_RUN_ID    prefix of every id (the tokens above name ids with it)

Prints one line per step and "all steps passed"; exits 1 on the first failure.
"""

from __future__ import annotations

import datetime
import functools
import json
import os
import sys
import urllib.request

import grpc
from google.api_core import exceptions as gexc
from google.maps import fleetengine_v1 as fe
from google.maps.fleetengine_v1.services.trip_service.transports import TripServiceGrpcTransport
from google.maps.fleetengine_v1.services.vehicle_service.transports import VehicleServiceGrpcTransport
from google.oauth2.credentials import Credentials
from google.protobuf import duration_pb2, field_mask_pb2, timestamp_pb2, wrappers_pb2
from google.type import latlng_pb2

EP = os.environ["WAYMARK_GRPC"]
REST = os.environ["WAYMARK_URL"].rstrip("/")
P = os.environ.get("WAYMARK_PROVIDER", "acme")
RUN = os.environ["WAYMARK_RUN_ID"]
PARENT = f"providers/{P}"
SERVER = os.environ["WAYMARK_TOKEN"]


def clients(token: str):
    local = grpc.local_channel_credentials(grpc.LocalConnectionType.LOCAL_TCP)
    options = {"api_endpoint": EP}
    creds = Credentials(token=token)
    trips = fe.TripServiceClient(transport=functools.partial(TripServiceGrpcTransport, ssl_channel_credentials=local),
                                 client_options=options, credentials=creds)
    vehicles = fe.VehicleServiceClient(transport=functools.partial(VehicleServiceGrpcTransport, ssl_channel_credentials=local),
                                       client_options=options, credentials=creds)
    return trips, vehicles


trips, vehicles = clients(SERVER)
driver_trips, driver_vehicles = clients(os.environ["WAYMARK_DRIVER_TOKEN"])
consumer_trips, _ = clients(os.environ["WAYMARK_CONSUMER_TOKEN"])
bad_trips, _ = clients("not-a-jwt")


def step(text: str) -> None:
    print(f"ok   {text}", flush=True)


def fail(text: str) -> None:
    print(f"FAIL {text}", flush=True)
    sys.exit(1)


def check(condition: bool, text: str) -> None:
    if not condition:
        fail(text)


def raises(kind, call, text: str, contains: str | None = None):
    try:
        call()
    except kind as error:
        if contains is not None and contains not in str(error.message):
            fail(f"{text}: message {error.message!r} lacks {contains!r}")
        step(f"{text} -> {type(error).__name__}: {error.message}")
        return error
    except Exception as error:  # noqa: BLE001
        fail(f"{text}: expected {kind.__name__}, got {type(error).__name__}: {error}")
    fail(f"{text}: expected {kind.__name__}, the call succeeded")


def ll(lat: float, lng: float) -> latlng_pb2.LatLng:
    return latlng_pb2.LatLng(latitude=lat, longitude=lng)


def terminal(lat: float, lng: float) -> fe.TerminalLocation:
    return fe.TerminalLocation(point=ll(lat, lng))


def rest_get(path: str) -> dict:
    request = urllib.request.Request(REST + path, headers={"Authorization": f"Bearer {SERVER}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def now_ts() -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(datetime.datetime.now(datetime.timezone.utc))
    return stamp


v1, v2, v3 = f"{RUN}-v1", f"{RUN}-v2", f"{RUN}-v3"
t1, t2, t3 = f"{RUN}-t1", f"{RUN}-t2", f"{RUN}-t3"
header = fe.RequestHeader(language_code="en-US", region_code="US", sdk_type=fe.RequestHeader.SdkType.DRIVER,
                          platform=fe.RequestHeader.Platform.ANDROID, android_api_level=34)

# ------------------------------------------------------------------------------------- vehicles
for vid, state in ((v1, fe.VehicleState.ONLINE), (v2, fe.VehicleState.ONLINE), (v3, fe.VehicleState.OFFLINE)):
    made = vehicles.create_vehicle(timeout=90, request=fe.CreateVehicleRequest(
        header=header, parent=PARENT, vehicle_id=vid,
        vehicle=fe.Vehicle(vehicle_state=state, supported_trip_types=[fe.TripType.EXCLUSIVE, fe.TripType.SHARED], maximum_capacity=4,
                           vehicle_type=fe.Vehicle.VehicleType(category=fe.Vehicle.VehicleType.Category.AUTO),
                           attributes=[fe.VehicleAttribute(key="color", string_value="red"), fe.VehicleAttribute(key="ev", bool_value=True)],
                           license_plate=fe.LicensePlate(country_code="US", last_character="7"),
                           last_location=fe.VehicleLocation(location=ll(52.52, 13.405)))))
    check(made.name == f"{PARENT}/vehicles/{vid}", f"create_vehicle name {made.name}")
    check(made.vehicle_state == state, f"create_vehicle state {made.vehicle_state}")
    check(list(made.supported_trip_types) == [fe.TripType.EXCLUSIVE, fe.TripType.SHARED], f"supported types {made.supported_trip_types}")
step("create_vehicle x3 (packed supported_trip_types, attributes, license plate)")

raises(gexc.AlreadyExists, lambda: vehicles.create_vehicle(timeout=90, request=fe.CreateVehicleRequest(
    parent=PARENT, vehicle_id=v1, vehicle=fe.Vehicle(vehicle_state=fe.VehicleState.ONLINE, supported_trip_types=[fe.TripType.EXCLUSIVE],
                                                     maximum_capacity=4, vehicle_type=fe.Vehicle.VehicleType(category=1)))),
       "create_vehicle twice")
raises(gexc.InvalidArgument, lambda: vehicles.create_vehicle(timeout=90, request=fe.CreateVehicleRequest(parent=PARENT, vehicle_id=f"{RUN}-bad/id",
                                                                                              vehicle=fe.Vehicle())), "create_vehicle with a bad id")
got = vehicles.get_vehicle(timeout=90, request={"name": f"{PARENT}/vehicles/{v1}"})
check(got.license_plate.country_code == "US" and got.maximum_capacity == 4, f"get_vehicle {got}")
step("get_vehicle")
raises(gexc.NotFound, lambda: vehicles.get_vehicle(timeout=90, request={"name": f"{PARENT}/vehicles/{RUN}-nope"}), "get_vehicle unknown")

# ---------------------------------------------------------------------------------------- trips
created = trips.create_trip(timeout=90, request=fe.CreateTripRequest(
    header=header, parent=PARENT, trip_id=t1,
    trip=fe.Trip(trip_type=fe.TripType.EXCLUSIVE, pickup_point=terminal(52.521, 13.41), dropoff_point=terminal(52.53, 13.38),
                 intermediate_destinations=[terminal(52.524, 13.40), terminal(52.527, 13.39)], number_of_passengers=2)))
check(created.name == f"{PARENT}/trips/{t1}" and created.trip_status == fe.TripStatus.NEW, f"create_trip {created}")
check(len(created.intermediate_destinations) == 2 and created.number_of_passengers == 2, f"create_trip echo {created}")
step("create_trip with two intermediate destinations")
for tid, kind in ((t2, fe.TripType.EXCLUSIVE), (t3, fe.TripType.SHARED)):
    trips.create_trip(timeout=90, request=fe.CreateTripRequest(parent=PARENT, trip_id=tid, trip=fe.Trip(
        trip_type=kind, pickup_point=terminal(52.51, 13.40), dropoff_point=terminal(52.50, 13.39))))
step("create_trip x2 (EXCLUSIVE, SHARED)")
raises(gexc.AlreadyExists, lambda: trips.create_trip(timeout=90, request=fe.CreateTripRequest(
    parent=PARENT, trip_id=t1, trip=fe.Trip(trip_type=fe.TripType.EXCLUSIVE, pickup_point=terminal(1, 2)))), "create_trip twice")
raises(gexc.InvalidArgument, lambda: trips.create_trip(timeout=90, request=fe.CreateTripRequest(
    parent=PARENT, trip_id=f"{RUN}-nopickup", trip=fe.Trip(trip_type=fe.TripType.EXCLUSIVE))), "create_trip without pickup_point",
       contains="pickupPoint is required")
raises(gexc.NotFound, lambda: trips.get_trip(timeout=90, request={"name": f"{PARENT}/trips/{RUN}-nope"}), "get_trip unknown")
raises(gexc.InvalidArgument, lambda: trips.get_trip(timeout=90, request={}), "get_trip with an empty request")
raises(gexc.Unauthenticated, lambda: bad_trips.get_trip(timeout=90, request={"name": f"{PARENT}/trips/{t1}"}), "get_trip with a malformed token")
raises(gexc.MethodNotImplemented, lambda: trips.report_billable_trip(timeout=90, request={"name": f"{PARENT}/billableTrips/{t1}", "country_code": "US"}),
       "report_billable_trip")


def update_trip(tid: str, paths: list[str], client=None, **fields) -> fe.Trip:
    client = client or trips
    return client.update_trip(timeout=90, request=fe.UpdateTripRequest(header=header, name=f"{PARENT}/trips/{tid}", trip=fe.Trip(**fields),
                                                           update_mask=field_mask_pb2.FieldMask(paths=paths)))


raises(gexc.InvalidArgument, lambda: update_trip(t1, ["no_such_field"]), "update_trip with an unknown mask path")
raises(gexc.FailedPrecondition, lambda: update_trip(t1, ["trip_status"], trip_status=fe.TripStatus.ENROUTE_TO_PICKUP),
       "update_trip ENROUTE_TO_PICKUP with no vehicle")
raises(gexc.PermissionDenied, lambda: update_trip(t1, ["trip_status"], client=consumer_trips, trip_status=fe.TripStatus.CANCELED),
       "update_trip with a consumer token")
raises(gexc.PermissionDenied, lambda: consumer_trips.get_trip(timeout=90, request={"name": f"{PARENT}/trips/{t1}", "view": fe.TripView.SDK}),
       "get_trip SDK view with a consumer token")
raises(gexc.PermissionDenied, lambda: driver_trips.search_trips(timeout=90, request={"parent": PARENT, "vehicle_id": v1}),
       "search_trips for another vehicle with a driver token")

# ----------------------------------------------------------------------- assignment and statuses
trip = update_trip(t1, ["vehicle_id", "trip_status"], vehicle_id=v1, trip_status=fe.TripStatus.ENROUTE_TO_PICKUP)
check(trip.vehicle_id == v1 and trip.trip_status == fe.TripStatus.ENROUTE_TO_PICKUP, f"assign {trip}")
step("update_trip assigns v1 and ENROUTE_TO_PICKUP")
raises(gexc.FailedPrecondition, lambda: vehicles.delete_vehicle(name=f"{PARENT}/vehicles/{v1}"), "delete_vehicle with a current trip")

location = fe.VehicleLocation(location=ll(52.5205, 13.4075), heading=wrappers_pb2.Int32Value(value=90),
                              speed=wrappers_pb2.DoubleValue(value=9.5), update_time=now_ts())
got = vehicles.update_vehicle(timeout=90, request=fe.UpdateVehicleRequest(header=header, name=f"{PARENT}/vehicles/{v1}", vehicle=fe.Vehicle(last_location=location),
                                                              update_mask=field_mask_pb2.FieldMask(paths=["last_location"])))
check(abs(got.last_location.location.latitude - 52.5205) < 1e-9 and got.last_location.heading == 90, f"update_vehicle location {got.last_location}")
step("update_vehicle last_location (Int32Value heading, DoubleValue speed, update_time)")
segment = "_p~iF~ps|U_ulLnnqC_mqNvxq`@"  # any valid encoded polyline
eta = now_ts()
eta.seconds += 300
got = vehicles.update_vehicle(timeout=90, request=fe.UpdateVehicleRequest(
    name=f"{PARENT}/vehicles/{v1}",
    vehicle=fe.Vehicle(current_route_segment="ivj_Iaqqp@uBsHsBwH", remaining_distance_meters=wrappers_pb2.Int32Value(value=850), eta_to_first_waypoint=eta),
    update_mask=field_mask_pb2.FieldMask(paths=["current_route_segment", "remaining_distance_meters", "eta_to_first_waypoint"])))
check(got.remaining_distance_meters == 850, f"route segment update {got.remaining_distance_meters}")
step("update_vehicle current_route_segment + remaining_distance_meters + eta_to_first_waypoint")
got = vehicles.update_vehicle(timeout=90, request=fe.UpdateVehicleRequest(
    name=f"{PARENT}/vehicles/{v1}", vehicle=fe.Vehicle(navigation_status=fe.NavigationStatus.ENROUTE_TO_DESTINATION),
    update_mask=field_mask_pb2.FieldMask(paths=["navigationStatus"])))
check(got.navigation_status == fe.NavigationStatus.ENROUTE_TO_DESTINATION, f"navigation status {got.navigation_status}")
step("update_vehicle with a camelCase mask path")
raises(gexc.InvalidArgument, lambda: vehicles.update_vehicle(timeout=90, request=fe.UpdateVehicleRequest(
    name=f"{PARENT}/vehicles/{v1}", vehicle=fe.Vehicle(), update_mask=field_mask_pb2.FieldMask(paths=["current_trips"]))),
       "update_vehicle of a server-managed field")
raises(gexc.PermissionDenied, lambda: driver_vehicles.update_vehicle(timeout=90, request=fe.UpdateVehicleRequest(
    name=f"{PARENT}/vehicles/{v1}", vehicle=fe.Vehicle(last_location=location), update_mask=field_mask_pb2.FieldMask(paths=["last_location"]))),
       "update_vehicle of another vehicle with a driver token")

trip = trips.get_trip(timeout=90, request={"name": f"{PARENT}/trips/{t1}"})
check(abs(trip.last_location.location.latitude - 52.5205) < 1e-9, f"the vehicle's location on its trip: {trip.last_location}")
check(trip.remaining_distance_meters == 850, f"the vehicle's remaining distance on its trip: {trip.remaining_distance_meters}")
step("get_trip shows the assigned vehicle's location and remaining distance")
version = fe.Trip.pb(trip).intermediate_destinations_version
check(version.seconds > 0, f"intermediate_destinations_version {version}")

update_trip(t1, ["trip_status"], trip_status=fe.TripStatus.ARRIVED_AT_PICKUP)
step("ARRIVED_AT_PICKUP")
stale = timestamp_pb2.Timestamp(seconds=version.seconds - 100)
raises(gexc.Aborted, lambda: update_trip(
    t1, ["trip_status", "intermediate_destination_index", "intermediate_destinations_version"],
    trip_status=fe.TripStatus.ENROUTE_TO_INTERMEDIATE_DESTINATION, intermediate_destination_index=0, intermediate_destinations_version=stale),
       "ENROUTE_TO_INTERMEDIATE_DESTINATION with a stale intermediate_destinations_version")
for index in (0, 1):
    trip = update_trip(t1, ["trip_status", "intermediate_destination_index", "intermediate_destinations_version"],
                       trip_status=fe.TripStatus.ENROUTE_TO_INTERMEDIATE_DESTINATION, intermediate_destination_index=index,
                       intermediate_destinations_version=version)
    check(trip.trip_status == fe.TripStatus.ENROUTE_TO_INTERMEDIATE_DESTINATION and trip.intermediate_destination_index == index, f"enroute {index}: {trip}")
    trip = update_trip(t1, ["trip_status", "intermediate_destination_index"],
                       trip_status=fe.TripStatus.ARRIVED_AT_INTERMEDIATE_DESTINATION, intermediate_destination_index=index)
    check(trip.trip_status == fe.TripStatus.ARRIVED_AT_INTERMEDIATE_DESTINATION and trip.intermediate_destination_index == index, f"arrived {index}: {trip}")
    step(f"ENROUTE_TO / ARRIVED_AT_INTERMEDIATE_DESTINATION index {index} (index 0 travels as an absent field)")
update_trip(t1, ["trip_status"], trip_status=fe.TripStatus.ENROUTE_TO_DROPOFF)
step("ENROUTE_TO_DROPOFF")

# --------------------------------------------------------------------- both views, gRPC vs REST
VOLATILE = ("remaining_time_to_first_waypoint",)
for view, rest_view in ((fe.TripView.SDK, "SDK"), (fe.TripView.JOURNEY_SHARING_V1S, "JOURNEY_SHARING_V1S")):
    over_grpc = trips.get_trip(timeout=90, request={"name": f"{PARENT}/trips/{t1}", "view": view})
    over_rest = fe.Trip.from_json(json.dumps(rest_get(f"/v1/{PARENT}/trips/{t1}?view={rest_view}")), ignore_unknown_fields=False)
    a, b = fe.Trip.pb(over_grpc), fe.Trip.pb(over_rest)
    for field in VOLATILE:
        a.ClearField(field)
        b.ClearField(field)
    if a != b:
        fail(f"gRPC and REST disagree on {rest_view}:\n--- gRPC\n{a}\n--- REST\n{b}")
    check(over_grpc.trip_status == fe.TripStatus.ENROUTE_TO_DROPOFF and over_grpc.vehicle_id == v1, f"{rest_view}: {over_grpc}")
    step(f"get_trip {rest_view} over gRPC equals the REST answer")
shared = consumer_trips.get_trip(timeout=90, request={"name": f"{PARENT}/trips/{t1}", "view": fe.TripView.JOURNEY_SHARING_V1S})
check(shared.name == f"{PARENT}/trips/{t1}", "consumer journey-sharing read")
step("get_trip JOURNEY_SHARING_V1S with the trip's consumer token")

# -------------------------------------------------------------------------- paging: search/list
got = vehicles.update_vehicle(timeout=90, request=fe.UpdateVehicleRequest(
    name=f"{PARENT}/vehicles/{v1}", vehicle=fe.Vehicle(back_to_back_enabled=True), update_mask=field_mask_pb2.FieldMask(paths=["back_to_back_enabled"])))
check(got.back_to_back_enabled, "back_to_back_enabled")
trip = update_trip(t2, ["vehicle_id"], vehicle_id=v1)
check(trip.vehicle_id == v1, f"back-to-back assignment {trip}")
step("t2 assigned back-to-back to v1 while t1 is ENROUTE_TO_DROPOFF")
seen = [t.name for t in trips.search_trips(timeout=90, request=fe.SearchTripsRequest(header=header, parent=PARENT, vehicle_id=v1, active_trips_only=True,
                                                                           page_size=1, minimum_staleness=duration_pb2.Duration(seconds=0)))]
check(sorted(seen) == sorted([f"{PARENT}/trips/{t1}", f"{PARENT}/trips/{t2}"]), f"search_trips pages {seen}")
step(f"search_trips page_size=1 over {len(seen)} pages")
listed = [v.name for v in vehicles.list_vehicles(timeout=90, request=fe.ListVehiclesRequest(
    parent=PARENT, page_size=1, vehicle_type_categories=[fe.Vehicle.VehicleType.Category.AUTO], minimum_capacity=wrappers_pb2.Int32Value(value=1)))]
mine = sorted(n for n in listed if n.split("/")[-1].startswith(RUN))
check(mine == sorted(f"{PARENT}/vehicles/{v}" for v in (v1, v2, v3)), f"list_vehicles pages {listed}")
step(f"list_vehicles page_size=1 over {len(listed)} pages")
online = [v.name for v in vehicles.list_vehicles(timeout=90, request=fe.ListVehiclesRequest(
    parent=PARENT, vehicle_type_categories=[1], vehicle_state=fe.VehicleState.OFFLINE, required_attributes=["color:red"]))]
check(f"{PARENT}/vehicles/{v3}" in online and f"{PARENT}/vehicles/{v1}" not in online, f"list_vehicles filtered {online}")
step("list_vehicles with vehicle_state and required_attributes")
found = vehicles.search_vehicles(timeout=90, request=fe.SearchVehiclesRequest(
    header=header, parent=PARENT, pickup_point=terminal(52.5206, 13.406), pickup_radius_meters=2000, count=5, minimum_capacity=1,
    trip_types=[fe.TripType.EXCLUSIVE], vehicle_types=[fe.Vehicle.VehicleType(category=1)],
    order_by=fe.SearchVehiclesRequest.VehicleMatchOrder.PICKUP_POINT_STRAIGHT_DISTANCE))
names = [m.vehicle.name for m in found.matches]
check(f"{PARENT}/vehicles/{v2}" in names, f"search_vehicles {names}")
step(f"search_vehicles found {len(names)} match(es)")
raises(gexc.InvalidArgument, lambda: vehicles.search_vehicles(timeout=90, request=fe.SearchVehiclesRequest(parent=PARENT, pickup_point=terminal(52.5, 13.4))),
       "search_vehicles without required fields")
attrs = vehicles.update_vehicle_attributes(timeout=90, request=fe.UpdateVehicleAttributesRequest(
    name=f"{PARENT}/vehicles/{v2}", attributes=[fe.VehicleAttribute(key="color", string_value="blue"), fe.VehicleAttribute(key="seats", number_value=5)]))
merged = {a.key: a for a in attrs.attributes}
check(merged["color"].string_value == "blue" and merged["seats"].number_value == 5 and merged["ev"].bool_value, f"attributes {attrs}")
step("update_vehicle_attributes merges by key")

# ---------------------------------------------------------------------------- finish and delete
trip = update_trip(t1, ["trip_status"], trip_status=fe.TripStatus.COMPLETE)
check(trip.trip_status == fe.TripStatus.COMPLETE, f"complete {trip}")
step("COMPLETE")
raises(gexc.FailedPrecondition, lambda: update_trip(t1, ["trip_status"], trip_status=fe.TripStatus.ENROUTE_TO_PICKUP), "status change after COMPLETE")
update_trip(t2, ["trip_status"], trip_status=fe.TripStatus.CANCELED)
step("CANCELED")
check(trips.delete_trip(name=f"{PARENT}/trips/{t3}") is None, "delete_trip returns None")
raises(gexc.NotFound, lambda: trips.get_trip(timeout=90, request={"name": f"{PARENT}/trips/{t3}"}), "get_trip after delete_trip")
check(vehicles.delete_vehicle(name=f"{PARENT}/vehicles/{v3}") is None, "delete_vehicle returns None")
raises(gexc.NotFound, lambda: vehicles.get_vehicle(timeout=90, request={"name": f"{PARENT}/vehicles/{v3}"}), "get_vehicle after delete_vehicle")
raises(gexc.NotFound, lambda: vehicles.delete_vehicle(name=f"{PARENT}/vehicles/{v3}"), "delete_vehicle twice")

# ---------------------------------------------------------------------- raw gRPC edge behaviour
channel = grpc.insecure_channel(EP)
unknown = channel.unary_unary("/maps.fleetengine.v1.TripService/NoSuchMethod")
try:
    unknown(b"", metadata=[("authorization", f"Bearer {SERVER}")])
    fail("an unknown method succeeded")
except grpc.RpcError as error:
    check(error.code() == grpc.StatusCode.UNIMPLEMENTED, f"unknown method: {error.code()}")
    step(f"unknown method -> UNIMPLEMENTED: {error.details()}")
compressed = grpc.insecure_channel(EP, compression=grpc.Compression.Gzip)
get = compressed.unary_unary("/maps.fleetengine.v1.TripService/GetTrip")
request = fe.GetTripRequest(name=f"{PARENT}/trips/{t1}" + "x" * 200)
try:
    get(fe.GetTripRequest.serialize(request), metadata=[("authorization", f"Bearer {SERVER}")])
    fail("a compressed request succeeded")
except grpc.RpcError as error:
    check(error.code() == grpc.StatusCode.UNIMPLEMENTED, f"compressed: {error.code()} {error.details()}")
    step(f"compressed request -> UNIMPLEMENTED: {error.details()}")
plain = channel.unary_unary("/maps.fleetengine.v1.TripService/GetTrip")
answer = plain(fe.GetTripRequest.serialize(fe.GetTripRequest(name=f"{PARENT}/trips/{t1}")), metadata=[("authorization", f"Bearer {SERVER}")])
check(fe.Trip.deserialize(answer).trip_status == fe.TripStatus.COMPLETE, "insecure channel with metadata token")
step("insecure channel with the token in call metadata")
try:
    plain(fe.GetTripRequest.serialize(fe.GetTripRequest(name=f"{PARENT}/trips/{t1}")))
    fail("a call without a token succeeded")
except grpc.RpcError as error:
    check(error.code() == grpc.StatusCode.UNAUTHENTICATED, f"no token: {error.code()}")
    step(f"no authorization metadata -> UNAUTHENTICATED: {error.details()}")

print("all steps passed", flush=True)
