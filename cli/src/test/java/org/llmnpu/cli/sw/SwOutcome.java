package org.llmnpu.cli.sw;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import picocli.CommandLine;

/** What an in-process {@code npu sw …} printed and returned, for the sw command tests. */
record SwOutcome(int code, String out, String err) {

    static SwOutcome run(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true));
            System.setErr(new PrintStream(err, true));
            int code = new CommandLine(new SwCommand()).execute(args);
            return new SwOutcome(code, out.toString(), err.toString());
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }
}
