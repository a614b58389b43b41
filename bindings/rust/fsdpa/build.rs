//! Tests and examples of this crate run against the libfsdpa that fsdpa-sys
//! linked: give them an rpath to its directory so `cargo test` and
//! `cargo run --example` work without LD_LIBRARY_PATH.  The library crate
//! itself gets none (it is not a link target); applications set their own.
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_FSDPA_LIB_DIR");
    if let Ok(dir) = std::env::var("DEP_FSDPA_LIB_DIR") {
        println!("cargo:rustc-link-arg-tests=-Wl,-rpath,{dir}");
        println!("cargo:rustc-link-arg-examples=-Wl,-rpath,{dir}");
    }
}
