package org.llmnpu.numerics.bench;

import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.llmnpu.hdl.bench.BenchRecord;
import org.llmnpu.numerics.fp16.Fp16;
import org.llmnpu.numerics.ppu.PpuError;
import org.llmnpu.numerics.ppu.PpuFitter;
import org.llmnpu.numerics.ppu.PpuFormat;
import org.llmnpu.numerics.ppu.PpuFunction;
import org.llmnpu.numerics.ppu.PpuTable;
import org.llmnpu.numerics.vector.Activations;
import org.llmnpu.numerics.vector.Fp16Math;

/**
 * Figures for issues 4 and 5: PPU max error per function and coefficient width over all 256 INT8
 * inputs, and the measured worst-case ULP errors of the FP16 DSP functions over all 65,536 inputs
 * next to the bounds their Javadoc states.
 *
 * <p>Run: {@code mvn -q -pl numerics -am test -Dbench -Dtest='*Bench' -Dsurefire.failIfNoSpecifiedTests=false}
 */
@ExtendWith(BenchRecord.class)
class NumericsAccuracyBench {

    @Test
    void printPpuErrorTable() {
        System.out.println();
        System.out.println("| function | coeff bits | max error (INT8 LSB, vs correctly rounded) | max error (LSB, vs exact) | exact codes /256 | fracBits c0,c1,c2 |");
        System.out.println("|---|---|---|---|---|---|");
        for (PpuFunction f : PpuFunction.values()) {
            for (int bits : new int[] {12, 16, 20}) {
                PpuTable t = PpuFitter.fit(f, new PpuFormat(16, 2, bits));
                PpuError e = PpuError.measure(t, f);
                System.out.println(String.format(Locale.ROOT, "| %s | %d | %d | %.3f | %d | %s |", f, bits, e.maxCodeError(),
                        e.maxRealError(), e.exactCodes(), java.util.Arrays.toString(t.fracBits())));
            }
        }
    }

    @Test
    void printFp16FunctionErrors() {
        System.out.println();
        System.out.println("| function | measured max error (ULP, all 65,536 inputs) | stated bound |");
        System.out.println("|---|---|---|");
        print("exp", max(Fp16Math::exp, Math::exp), Fp16Math.EXP_ULP_BOUND);
        print("reciprocal", max(Fp16Math::reciprocal, x -> 1 / x), Fp16Math.RECIPROCAL_ULP_BOUND);
        print("rsqrt", max(Fp16Math::rsqrt, x -> 1 / Math.sqrt(x)), Fp16Math.RSQRT_ULP_BOUND);
        print("silu", max(Activations::silu, x -> x / (1 + Math.exp(-x))), Activations.SILU_ULP_BOUND);
        print("gelu (tanh form)", max(Activations::gelu, Activations::geluTanhReference), Activations.GELU_ULP_BOUND);
        double vsErf = max(Activations::gelu, x -> 0.5 * x * (1 + org.apache.commons.math3.special.Erf.erf(x / Math.sqrt(2))));
        System.out.println(String.format(Locale.ROOT, "| gelu vs erf GeLU (approximation error included) | %.2f | — |", vsErf));
    }

    private static void print(String name, double measured, double bound) {
        System.out.println(String.format(Locale.ROOT, "| %s | %.3f | %.2f |", name, measured, bound));
    }

    private static double max(java.util.function.UnaryOperator<Short> f, java.util.function.DoubleUnaryOperator ref) {
        double max = 0;
        for (int c = 0; c < 65536; c++) {
            short x = (short) c;
            if (!Fp16.isNaN(x)) {
                max = Math.max(max, Fp16.ulpError(f.apply(x), ref.applyAsDouble(Fp16.toDouble(x))));
            }
        }
        return max;
    }
}
