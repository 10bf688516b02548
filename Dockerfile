# Build with the official Swift image, run on plain Debian with the C libraries we link.
FROM swift:6.3-bookworm AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends libpq-dev libssl-dev libmicrohttpd-dev libcurl4-openssl-dev libnghttp2-dev libjemalloc-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# The server only: the benchmarks (`waymark-bench`, run by `waymark bench`) are not part of the image.
RUN swift build -c release --static-swift-stdlib --product waymark

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends libpq5 libssl3 libmicrohttpd12 libcurl4 libnghttp2-14 libjemalloc2 ca-certificates tzdata \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/.build/release/waymark /usr/local/bin/waymark
USER nobody
EXPOSE 8080 8081
ENTRYPOINT ["/usr/local/bin/waymark"]
# Inside a container the server must listen on all interfaces to be reachable.
ENV WAYMARK_HTTP_HOST=0.0.0.0 WAYMARK_HTTP_PORT=8080
CMD ["serve"]
