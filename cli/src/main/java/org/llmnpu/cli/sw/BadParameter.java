package org.llmnpu.cli.sw;

import java.util.function.Supplier;

/** A rejected command-line value; the message is one line naming the parameter and what it allows. */
final class BadParameter extends Exception {

    BadParameter(String message) {
        super(message);
    }

    /** Runs {@code parse}; an IllegalArgumentException becomes "parameter: reason". */
    static <T> T parse(String parameter, Supplier<T> parse) throws BadParameter {
        try {
            return parse.get();
        } catch (IllegalArgumentException e) {
            throw new BadParameter(parameter + ": " + e.getMessage());
        }
    }
}
