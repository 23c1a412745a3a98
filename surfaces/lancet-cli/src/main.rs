//! The `lancet` binary: the command line over the lancet facade (clap arguments, input
//! decoding, output and colours, the progress bar); `lancet mcp` hands over to lancet-mcp.

mod cli;

use libmimalloc_sys::{mi_free, mi_malloc, mi_realloc, mi_zalloc};
use std::ffi::c_void;

/// mimalloc, for Rust's allocations and (see [`trees_in_mimalloc`]) tree-sitter's. A rename
/// keeps every parsed file's tree until it is written (the stdlib's `assertEqual`: 640 MB in
/// small nodes, from two threads): glibc's malloc spent a tenth of that run growing its
/// arenas; mimalloc made the run 8% faster (its v2, without transparent huge pages: with them,
/// zeroing 2 MB pages on each fault made it slower than glibc).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    trees_in_mimalloc();
    std::process::ExitCode::from(cli::run())
}

/// Points tree-sitter's C allocations at mimalloc too. First thing in `main`: a tree must be
/// freed by the allocator that made it, so none may exist yet.
fn trees_in_mimalloc() {
    // tree-sitter must never see a null block (its own default aborts instead, as these do).
    unsafe extern "C" fn malloc(size: usize) -> *mut c_void {
        unless_null(unsafe { mi_malloc(size) }, size)
    }
    unsafe extern "C" fn calloc(count: usize, size: usize) -> *mut c_void {
        // An overflowing size cannot be allocated: the null it gets aborts.
        let bytes = count.saturating_mul(size);
        unless_null(unsafe { mi_zalloc(bytes) }, bytes)
    }
    unsafe extern "C" fn realloc(block: *mut c_void, size: usize) -> *mut c_void {
        unless_null(unsafe { mi_realloc(block, size) }, size)
    }
    unsafe extern "C" fn free(block: *mut c_void) {
        unsafe { mi_free(block) }
    }
    fn unless_null(block: *mut c_void, size: usize) -> *mut c_void {
        if block.is_null() && size > 0 {
            std::process::abort();
        }
        block
    }
    let allocator = tree_sitter::Allocator {
        malloc,
        calloc,
        realloc,
        free,
    };
    // SAFETY: one allocator family, never null for a non-zero size, malloc's alignment; set
    // before any tree-sitter call (the first line of `main`, one thread).
    unsafe { tree_sitter::set_allocator(Some(allocator)) };
}
