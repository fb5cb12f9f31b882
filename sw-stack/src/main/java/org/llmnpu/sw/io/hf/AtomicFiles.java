package org.llmnpu.sw.io.hf;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** Files written next to their destination and moved into place, so a reader never sees half a file. */
final class AtomicFiles {

    private AtomicFiles() {
    }

    /** Gives a temporary file (rw-r--r--) or directory (rwxr-xr-x) the permissions of an ordinary output. */
    static Path ordinary(Path p) throws IOException {
        if (p.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.setPosixFilePermissions(p, java.nio.file.attribute.PosixFilePermissions.fromString(
                    Files.isDirectory(p) ? "rwxr-xr-x" : "rw-r--r--"));
        }
        return p;
    }

    static void move(Path tmp, Path file) throws IOException {
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    static void writeString(Path file, String text) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = ordinary(Files.createTempFile(dir, "." + file.getFileName(), ".tmp"));
        try {
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            move(tmp, file);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
