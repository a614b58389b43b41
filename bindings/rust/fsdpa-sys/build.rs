//! Finds libfsdpa without any crate: `FSDPA_LIB_DIR` if set, else the
//! `pkg-config` binary (a meson build dir provides
//! `libfsdpa/fsdpa-uninstalled.pc`, which pkg-config prefers when
//! that directory is on PKG_CONFIG_PATH).
//!
//! A machine without the library still compiles the crate (documentation
//! builds, `cargo check`): the script then prints a warning and asks for no
//! link, so only a final link (a test, an example, a program) fails, naming
//! the missing `-lfsdpa`.
use std::env;
use std::path::Path;
use std::process::Command;

/// Where libfsdpa is, or why it was not found.
fn find() -> Result<Vec<String>, String> {
    if let Ok(dir) = env::var("FSDPA_LIB_DIR") {
        let has_lib = [
            "libfsdpa.so",
            "libfsdpa.so.2",
            "libfsdpa.dylib",
            "fsdpa.lib",
        ]
        .iter()
        .any(|f| Path::new(&dir).join(f).exists());
        if !has_lib {
            return Err(format!("FSDPA_LIB_DIR={dir} holds no libfsdpa.so"));
        }
        return Ok(vec![dir]);
    }
    let pkg_config = env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".into());
    match Command::new(&pkg_config).args(["--libs", "fsdpa"]).output() {
        Ok(o) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout)
            .split_whitespace()
            .filter_map(|tok| tok.strip_prefix("-L").map(str::to_string))
            .collect()),
        Ok(o) => Err(format!(
            "`{pkg_config} --libs fsdpa` failed: {}",
            // one line: cargo shows only the first line of a warning
            String::from_utf8_lossy(&o.stderr)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        )),
        Err(e) => Err(format!("cannot run {pkg_config}: {e}")),
    }
}

fn main() {
    println!("cargo:rerun-if-env-changed=FSDPA_LIB_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG");
    let dirs = match find() {
        Ok(d) => d,
        Err(why) => {
            println!(
                "cargo:warning=fsdpa-sys: libfsdpa not found ({why}); not linking it. Set \
                 FSDPA_LIB_DIR to the directory of libfsdpa.so, or PKG_CONFIG_PATH to \
                 <build>/libfsdpa."
            );
            return;
        }
    };
    for d in &dirs {
        println!("cargo:rustc-link-search=native={d}");
    }
    println!("cargo:rustc-link-lib=dylib=fsdpa");
    // Dependent crates read this as DEP_FSDPA_LIB_DIR (e.g. to set an rpath
    // for their tests and examples).
    if let Some(d) = dirs.first() {
        println!("cargo:lib_dir={d}");
    }
}
