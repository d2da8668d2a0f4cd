//! `include/lidx.h` is cbindgen's output for this crate, checked in: this
//! test generates it afresh and fails when the checked-in copy differs.
//! `LIDX_BLESS=1 cargo test -p lidx-capi --test header` rewrites it.

use std::path::Path;

#[test]
fn header_is_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(dir.join("src/lib.rs"))
        .generate()
        .expect("cbindgen generates the header");
    let mut fresh = Vec::new();
    bindings.write(&mut fresh);
    let path = dir.join("include/lidx.h");
    if std::env::var_os("LIDX_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &fresh).expect("write include/lidx.h");
        return;
    }
    let checked_in = std::fs::read(&path).unwrap_or_default();
    assert!(
        checked_in == fresh,
        "capi/include/lidx.h is stale: regenerate it with \
         `LIDX_BLESS=1 cargo test -p lidx-capi --test header` and commit it"
    );
}
