-- Retention sweeps (TripRetention): how far each sweep got. A sweep looks only at streams whose
-- last event falls between the previous cutoff (`swept_before`) and its own, so a trip is looked
-- at once per quiet spell and streams deleted long ago are not read again.
CREATE TABLE retention_sweeps (
    name         text PRIMARY KEY,
    swept_before timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL DEFAULT now()
);

GRANT SELECT, INSERT, UPDATE, DELETE ON retention_sweeps TO waymark_app;
