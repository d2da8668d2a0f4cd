//! Links the `lidx` binary as a position-dependent executable on Linux.
//!
//! A goto is a whole process, and most of a warm goto's time is starting
//! one. As a PIE, the binary's 560 KiB of `.data.rel.ro` (clap's command
//! tables, vtables, panic locations: about 33,600 relative relocations)
//! is rewritten by the dynamic loader at every start, one copy-on-write
//! page fault per 4 KiB page. Linked with `-no-pie` nothing is relocated,
//! and the pages a run reads come in by the kernel's fault-around, many at
//! a time. Measured on the project's 2-core VM (`perf stat -r 100 lidx
//! lines FILE N`, a 4 GiB log, warm): 334 page faults and 2.36 ms as a
//! PIE, 192 and 1.80 ms without. The cost is the binary's own addresses
//! not being randomised (its libraries, heap and stack still are), as for
//! any non-PIE program.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu")
    {
        println!("cargo:rustc-link-arg-bin=lidx=-no-pie");
    }
}
