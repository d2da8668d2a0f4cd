"""The exceptions lidx raises.

Every exception's message (``str(e)``) is the error text of the ``lidx``
command line, the line it prints after ``lidx: ``. The class says what
kind of failure it is; where a built-in exception means the same, the class
derives from it too, so ``except FileNotFoundError``, ``except IndexError``
or ``except ValueError`` catch lidx's as well::

    Error                           every error lidx raises
    ├── FileError (OSError)         an operating-system call failed
    │   ├── NotFoundError (FileNotFoundError)
    │   └── PermissionDeniedError (PermissionError)
    ├── RemoteError (OSError)       a URL could not be read
    ├── SidecarError                the sidecar is damaged, of a newer
    │                               format, or built for another file
    ├── NoSidecarError              no sidecar, and build=False
    ├── StaleError                  the sidecar does not describe the file
    │                               as it is (and build=False), or the file
    │                               changed while in use
    ├── SourceError                 the file cannot be read as text: a
    │                               damaged gzip archive, another
    │                               compression format
    ├── OutOfRangeError (IndexError)  a line or offset past the end
    ├── InvalidArgumentError (ValueError)  a bad argument or pattern
    ├── FamilyError                 a rotation family's files do not match
    │                               its recorded numbering (a member
    │                               missing, replaced or grown)
    └── CancelledError              a build cancelled by its progress
                                    callback; nothing was written
"""

__all__ = [
    "Error",
    "FileError",
    "NotFoundError",
    "PermissionDeniedError",
    "RemoteError",
    "SidecarError",
    "NoSidecarError",
    "StaleError",
    "SourceError",
    "OutOfRangeError",
    "InvalidArgumentError",
    "FamilyError",
    "CancelledError",
]


class Error(Exception):
    """Base class of every error lidx raises; ``str(e)`` is the message."""

    def __str__(self) -> str:
        # An OSError with a filename would format "[Errno N] ...: 'name'":
        # the message stays the command line's.
        return str(self.args[0]) if self.args else ""


class FileError(Error, OSError):
    """An operating-system call failed (``errno``, ``strerror`` and
    ``filename`` are set)."""


class NotFoundError(FileError, FileNotFoundError):
    """A file does not exist."""


class PermissionDeniedError(FileError, PermissionError):
    """A file may not be read, or a sidecar may not be written."""


class RemoteError(Error, OSError):
    """A remote object (a URL) could not be read: not found, refused, a
    server error or a timeout after the retries."""


class SidecarError(Error):
    """The sidecar is damaged (a checksum mismatch, impossible values), is
    not a lidx sidecar, is of a newer format, or was built for another
    file. lidx never answers from it and never overwrites it (``force=True``
    does)."""


class NoSidecarError(Error):
    """There is no sidecar, and ``build=False``."""


class StaleError(Error):
    """The sidecar does not describe the file as it is now (with
    ``build=False``), or the file changed while in use."""


class SourceError(Error):
    """The file cannot be read as text: a damaged or truncated gzip archive
    (``lines``, when set, is how many lines before the damage can be read),
    or data in a compression format lidx does not read."""


class OutOfRangeError(Error, IndexError):
    """A line number or byte offset past the end of the file (``lines`` and
    ``size``, when set, are the file's)."""


class InvalidArgumentError(Error, ValueError):
    """An invalid argument: a line number 0, a range whose end is before its
    start, an invalid pattern, a path that is not a regular file."""


class FamilyError(Error):
    """A rotation family cannot be read with the line numbers it recorded:
    a member is missing between others, was replaced by another file or
    grew after it was rotated, none of the files is a member its manifest
    knows, or the manifest is damaged. The message names the file and the
    way out (``lidx.Family(live, renumber=True)`` numbers the members from
    line 1 again)."""


class CancelledError(Error):
    """A build, extension or content check was cancelled by its progress
    callback (which returned False); nothing was written."""


# Shown as lidx.NotFoundError (where they are used), not lidx._errors.
for _cls in (
    Error,
    FileError,
    NotFoundError,
    PermissionDeniedError,
    RemoteError,
    SidecarError,
    NoSidecarError,
    StaleError,
    SourceError,
    OutOfRangeError,
    InvalidArgumentError,
    FamilyError,
    CancelledError,
):
    _cls.__module__ = "lidx"
del _cls
