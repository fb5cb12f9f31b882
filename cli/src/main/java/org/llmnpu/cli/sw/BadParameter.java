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

    /**
     * The shape of {@code --model}: a named model or a Hugging Face model directory's config.json; an unknown
     * name or a bad config.json is a bad parameter.
     */
    static org.llmnpu.sw.model.ModelConfig modelConfig(String model) throws BadParameter {
        return parse("--model", () -> {
            try {
                return org.llmnpu.sw.io.ModelCatalog.config(model);
            } catch (java.io.IOException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
        });
    }
}
