-- Webhook subscriptions and their delivery state; the arrival detector's checkpoint and state.
--
-- Subscriptions are rows, not events: a subscription holds a secret (which must be deletable and
-- must never be exported with the log), and its delivery checkpoint moves with every delivery,
-- like a projection checkpoint. `generation` is bumped by every change made through the API
-- (resume, replay, delete), and the dispatcher writes its checkpoint only while the generation
-- it read is current, so a replay is never overwritten by a delivery that was in flight.
CREATE TABLE webhook_subscriptions (
    provider              text        NOT NULL,
    id                    text        NOT NULL,
    url                   text        NOT NULL,
    secret                text        NOT NULL,
    event_types           text[]      NOT NULL DEFAULT '{}',
    trip_ids              text[]      NOT NULL DEFAULT '{}',
    vehicle_ids           text[]      NOT NULL DEFAULT '{}',
    created_at            timestamptz NOT NULL DEFAULT now(),
    transaction_id        bigint      NOT NULL DEFAULT 0,   -- checkpoint: the last event handled (delivered or filtered out)
    global_position       bigint      NOT NULL DEFAULT 0,
    generation            bigint      NOT NULL DEFAULT 0,
    paused                boolean     NOT NULL DEFAULT false,
    consecutive_failures  integer     NOT NULL DEFAULT 0,
    last_error            text,
    last_attempt_at       timestamptz,
    last_delivered_at     timestamptz,
    delivered_events      bigint      NOT NULL DEFAULT 0,
    PRIMARY KEY (provider, id)
);

-- The arrival detector (a process manager): its feed checkpoint, and each vehicle's detector
-- state, written in one transaction after the events it decided were appended.
CREATE TABLE arrival_detector_checkpoint (
    name            text   PRIMARY KEY,
    transaction_id  bigint NOT NULL DEFAULT 0,
    global_position bigint NOT NULL DEFAULT 0
);
CREATE TABLE arrival_detector_vehicles (
    stream_id text  PRIMARY KEY,
    state     jsonb NOT NULL
);

GRANT SELECT, INSERT, UPDATE, DELETE ON webhook_subscriptions, arrival_detector_checkpoint, arrival_detector_vehicles TO waymark_app;
