//! The tests' JSON reader (tests/common/json.rs): what every comparison
//! with the library's JSON rests on.
#[path = "common/json.rs"]
mod json;
use json::Value;

#[test]
fn parses() {
    let v =
        Value::parse(r#"{"a": [1, -9223372036854775808, 2.5, "x\u00e9\n", null, true], "b": {}}"#)
            .unwrap();
    assert_eq!(v.get("a").at(1).as_i64(), Some(i64::MIN));
    assert_eq!(v.get("a").at(2).as_f64(), Some(2.5));
    assert_eq!(v.get("a").at(3).as_str(), Some("x\u{e9}\n"));
    assert!(v.get("a").at(4).is_null());
    assert!(v.get("missing").is_null());
    assert_eq!(v.get("b").as_object().len(), 0);
}

#[test]
fn rejects() {
    for bad in ["", "{", "[1,]", "{\"a\" 1}", "01x", "\"\\q\"", "[1] 2"] {
        assert!(Value::parse(bad).is_err(), "{bad}");
    }
    assert_eq!(Value::parse("[1, }").unwrap_err().offset, 4);
}
