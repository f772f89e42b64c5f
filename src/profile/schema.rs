pub fn json_schema() -> serde_json::Value { serde_json::json!({}) }
