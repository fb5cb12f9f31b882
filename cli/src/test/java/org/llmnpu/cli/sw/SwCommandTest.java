package org.llmnpu.cli.sw;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class SwCommandTest {

    private record Outcome(int code, String out, String err) {
    }

    private static Outcome run(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true));
            System.setErr(new PrintStream(err, true));
            int code = new CommandLine(new SwCommand()).execute(args);
            return new Outcome(code, out.toString(), err.toString());
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }

    @Test
    void runPrintsSpeedAndAccuracyAgainstFp32() {
        Outcome o = run("run", "--model", "tiny", "--prompt-len", "8", "--max-new", "4", "--quant", "int8",
                "--static", "slp=8,slr=4");
        assertEquals(0, o.code(), o.err());
        assertTrue(o.out().contains("tokens/s") && o.out().contains("SNR") && o.out().contains("top-1"), o.out());
        assertTrue(o.out().contains("max |logit difference| 0"), o.out());
    }

    @Test
    void speculativeRunReportsAcceptanceAsJson() {
        Outcome o = run("run", "--prompt-len", "8", "--max-new", "6", "--speculative", "draft=int4-g32,gamma=3", "--json");
        assertEquals(0, o.code(), o.err());
        assertTrue(o.out().contains("\"acceptanceRate\""), o.out());
    }

    @Test
    void kvAndPassesRun() {
        Outcome kv = run("kv", "--context", "64", "--decode", "2", "--kv", "hybrid4,g32,r32", "--evict", "snapkv,w8,budget32");
        assertEquals(0, kv.code(), kv.err());
        assertTrue(kv.out().contains("bytes/token"), kv.out());
        Outcome passes = run("passes", "--sram-kib", "256", "--prefill", "32", "--context", "64");
        assertEquals(0, passes.code(), passes.err());
        assertTrue(passes.out().contains("+ attention"), passes.out());
    }

    @Test
    void badParametersExitWithCode2AndOneLineNamingTheParameter() {
        String[][] cases = {
            {"run", "--quant", "int9"},
            {"run", "--sparsity", "3:4"},
            {"run", "--static", "slp=4,slr=4", "--prompt-len", "8"},
            {"run", "--model", "huge"},
            {"kv", "--kv", "hybrid4,g24,r48"},
            {"kv", "--evict", "snapkv,w32,budget16"},
            {"passes", "--sram-kib", "0"},
            {"passes", "--array", "3y"},
        };
        for (String[] args : cases) {
            Outcome o = run(args);
            assertEquals(2, o.code(), String.join(" ", args));
            assertEquals(1, o.err().strip().lines().count(), o.err());
            assertTrue(o.err().startsWith("--"), o.err());
        }
    }
}
