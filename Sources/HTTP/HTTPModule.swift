/// The HTTP server module (placeholder until the server lands).
enum HTTPModule {}
