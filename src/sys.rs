//! The crate's only `unsafe`: thin wrappers over libc calls std lacks.

/// `posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)`: a readahead hint.
#[allow(unsafe_code)]
pub fn fadvise_sequential(fd: std::os::fd::RawFd) {
    // SAFETY: posix_fadvise only reads its integer arguments; an invalid fd
    // yields EBADF, not undefined behaviour. The result is a hint we ignore.
    unsafe {
        libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_SEQUENTIAL);
    }
}
