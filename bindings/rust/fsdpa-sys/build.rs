//! Finds libfsdpa without any crate: `FSDPA_LIB_DIR` if set, else the
//! `pkg-config` binary (a meson build dir provides
//! `libfsdpa/fsdpa-uninstalled.pc`, which pkg-config prefers when
//! that directory is on PKG_CONFIG_PATH).
use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=FSDPA_LIB_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG");
    let mut dirs: Vec<String> = Vec::new();
    if let Ok(dir) = env::var("FSDPA_LIB_DIR") {
        dirs.push(dir);
    } else {
        let pkg_config = env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".into());
        let out = Command::new(&pkg_config).args(["--libs", "fsdpa"]).output();
        match out {
            Ok(o) if o.status.success() => {
                for tok in String::from_utf8_lossy(&o.stdout).split_whitespace() {
                    if let Some(d) = tok.strip_prefix("-L") {
                        dirs.push(d.to_string());
                    }
                }
            }
            Ok(o) => panic!(
                "fsdpa-sys: `{pkg_config} --libs fsdpa` failed: {}\nSet FSDPA_LIB_DIR to the \
                 directory of libfsdpa.so, or PKG_CONFIG_PATH to <build>/libfsdpa.",
                String::from_utf8_lossy(&o.stderr).trim()
            ),
            Err(e) => panic!(
                "fsdpa-sys: cannot run {pkg_config}: {e}\nSet FSDPA_LIB_DIR to the directory \
                 of libfsdpa.so."
            ),
        }
    }
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
