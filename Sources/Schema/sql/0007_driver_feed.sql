-- The driver feed read model (per vehicle: current step, next stop, offers, messages).
CREATE TABLE rm_driver_feed (collection text NOT NULL, key text NOT NULL, document jsonb NOT NULL, PRIMARY KEY (collection, key));

GRANT SELECT, INSERT, UPDATE, DELETE ON rm_driver_feed TO waymark_app;
