//! fsdpa-sys matches the C header: struct sizes/offsets, enum values,
//! constants and function signatures, compared with the table a C program
//! generated from fsdpa.h prints (bindings/abi/).
mod common;
use fsdpa::json::Value;
use fsdpa::sys;

#[test]
fn structs_match_header() {
    let abi = Value::parse(&common::abi_json()).unwrap();
    let structs = abi.get("structs");
    for (name, size, align, fields) in sys::layouts() {
        let c = structs.get(name);
        assert!(!c.is_null(), "{name} is not in fsdpa.h any more");
        assert_eq!(Some(size as i64), c.get("size").as_i64(), "sizeof({name})");
        assert_eq!(
            Some(align as i64),
            c.get("align").as_i64(),
            "_Alignof({name})"
        );
        let theirs: Vec<(String, i64, i64)> = c
            .get("fields")
            .as_array()
            .iter()
            .map(|f| {
                (
                    f.get("name").as_str().unwrap().to_string(),
                    f.get("offset").as_i64().unwrap(),
                    f.get("size").as_i64().unwrap(),
                )
            })
            .collect();
        let mine: Vec<(String, i64, i64)> = fields
            .iter()
            .map(|&(n, o, s)| (n.to_string(), o as i64, s as i64))
            .collect();
        assert_eq!(mine, theirs, "fields of {name} (name, offset, size)");
    }
    let mirrored: Vec<&str> = sys::layouts().iter().map(|l| l.0).collect();
    let missing: Vec<&str> = structs
        .as_object()
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| !mirrored.contains(k))
        .collect();
    if !missing.is_empty() {
        println!("# note: header structs fsdpa-sys does not mirror: {missing:?}");
    }
}

#[test]
fn enums_and_constants_match_header() {
    let abi = Value::parse(&common::abi_json()).unwrap();
    for (name, size, values) in sys::enums() {
        let c = abi.get("enums").get(name);
        assert!(!c.is_null(), "enum {name} is not in fsdpa.h any more");
        assert_eq!(Some(size as i64), c.get("size").as_i64(), "sizeof({name})");
        for &(k, v) in values {
            assert_eq!(c.get("values").get(k).as_i64(), Some(v as i64), "{k}");
        }
    }
    let k = abi.get("constants");
    assert_eq!(k.get("FSDPA_ABSENT").as_i64(), Some(sys::FSDPA_ABSENT));
    assert_eq!(
        k.get("FSDPA_VERSION_MAJOR").as_i64(),
        Some(sys::FSDPA_VERSION_MAJOR)
    );
    assert_eq!(
        k.get("FSDPA_GAP_EDGES").as_i64(),
        Some(sys::FSDPA_GAP_EDGES as i64)
    );
    assert_eq!(
        k.get("FSDPA_GAP_BINS").as_i64(),
        Some(sys::FSDPA_GAP_BINS as i64)
    );
}

/// The header's spelling of a type with `struct T` written as `T` where `T`
/// is one of its structs: every public struct is `typedef struct T {..} T`,
/// so both name the same type (fsdpa_summary_report() spells its report
/// options `const struct fsdpa_report_options *`).
fn canonical(c_type: &str, structs: &Value) -> String {
    let mut out = String::new();
    let mut rest = c_type;
    while let Some(i) = rest.find("struct ") {
        let after = &rest[i + "struct ".len()..];
        let ident: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let word_start = i == 0 || !rest.as_bytes()[i - 1].is_ascii_alphanumeric();
        out.push_str(&rest[..i]);
        let a_header_struct = word_start && !structs.get(&ident).is_null();
        if !a_header_struct {
            out.push_str("struct ");
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

#[test]
fn canonical_spelling() {
    let abi = Value::parse(&common::abi_json()).unwrap();
    let s = abi.get("structs");
    assert_eq!(
        canonical("const struct fsdpa_report_options *", s),
        "const fsdpa_report_options *"
    );
    assert_eq!(
        canonical("struct not_in_header *", s),
        "struct not_in_header *"
    );
    assert_eq!(canonical("fsdpa_ctx * const *", s), "fsdpa_ctx * const *");
}

#[test]
fn signatures_match_header() {
    let abi = Value::parse(&common::abi_json()).unwrap();
    let funcs = abi.get("functions");
    let structs = abi.get("structs");
    let mut declared = Vec::new();
    for (name, ret, params) in sys::signatures() {
        declared.push(name);
        let c = funcs.get(name);
        assert!(!c.is_null(), "{name} is not in fsdpa.h any more");
        assert_eq!(
            Some(ret),
            c.get("ret").as_str().map(|r| canonical(r, structs)),
            "{name} return type"
        );
        let theirs: Vec<String> = c
            .get("params")
            .as_array()
            .iter()
            .map(|p| canonical(p.as_str().unwrap(), structs))
            .collect();
        assert_eq!(params, theirs, "{name} parameters");
    }
    let unwrapped: Vec<&str> = funcs
        .as_object()
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| !declared.contains(k))
        .collect();
    if !unwrapped.is_empty() {
        println!("# note: header functions fsdpa-sys does not declare: {unwrapped:?}");
    }
}

#[test]
fn loaded_library_is_this_header() {
    let abi = Value::parse(&common::abi_json()).unwrap();
    assert_eq!(
        Some(fsdpa::version().as_str()),
        abi.get("header_version").as_str()
    );
}
