package org.llmnpu.sw.io;

import java.io.IOException;

/**
 * A model or tokenizer file that cannot be used as given: missing, a directory, a header that
 * describes an impossible or too large model, a size that does not match the header, non-finite
 * weights, a malformed tokenizer piece. The message is one line naming the file and the problem;
 * the command line reports it with exit code 2 (bad input), not as a crash.
 */
public final class ModelFileException extends IOException {

    private static final long serialVersionUID = 1L;

    public ModelFileException(String message) {
        super(message);
    }

    public ModelFileException(String message, Throwable cause) {
        super(message, cause);
    }

    /** Rejects a path that is missing, a directory or unreadable, with a message naming it. */
    public static void checkRegularFile(java.nio.file.Path file, String what) throws ModelFileException {
        if (java.nio.file.Files.isDirectory(file)) {
            throw new ModelFileException(file + ": is a directory, expected " + what);
        }
        if (!java.nio.file.Files.exists(file)) {
            throw new ModelFileException(file + ": no such file (expected " + what + ")");
        }
        if (!java.nio.file.Files.isReadable(file)) {
            throw new ModelFileException(file + ": not readable (expected " + what + ")");
        }
    }
}
