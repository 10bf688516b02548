/// The API module (placeholder until the routes land).
enum APIModule {}
