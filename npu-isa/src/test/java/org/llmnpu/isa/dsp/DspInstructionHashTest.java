package org.llmnpu.isa.dsp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * An instruction's hash is its word's: equal instructions (and programs) hash equally, the value is the same in every
 * JVM (not an enum's identity hash), and instructions differing in any one field hash apart.
 */
class DspInstructionHashTest {
  @Test
  void equalInstructionsHashEquallyAndTheHashIsTheWords() {
    Random r = new Random(5);
    DspOp[] ops = DspOp.values();
    Set<Integer> hashes = new HashSet<>();
    for (int i = 0; i < 2000; i++) {
      DspInstruction a = new DspInstruction(ops[r.nextInt(ops.length)], r.nextInt(32), r.nextInt(32), r.nextInt(32),
          r.nextInt(32), r.nextBoolean(), r.nextInt(16), r.nextInt());
      DspInstruction b = DspInstruction.decode(a.encode());
      assertEquals(a, b);
      assertEquals(a.hashCode(), b.hashCode());
      assertEquals(Long.hashCode(a.encode()), a.hashCode());
      hashes.add(a.hashCode());
    }
    assertEquals(2000, hashes.size(), "random instructions hash apart");
    DspInstruction base = new DspInstruction(DspOp.LI, 1, 2, 3, 4, false, 5, 6);
    for (DspInstruction other : List.of(new DspInstruction(DspOp.LD, 1, 2, 3, 4, false, 5, 6),
        new DspInstruction(DspOp.LI, 7, 2, 3, 4, false, 5, 6), new DspInstruction(DspOp.LI, 1, 2, 3, 9, false, 5, 6),
        new DspInstruction(DspOp.LI, 1, 2, 3, 4, true, 5, 6), new DspInstruction(DspOp.LI, 1, 2, 3, 4, false, 0, 6),
        new DspInstruction(DspOp.LI, 1, 2, 3, 4, false, 5, -6))) {
      assertNotEquals(base.hashCode(), other.hashCode(), other.toString());
    }
    DspProgram p = new DspProgram("p", List.of(base, new DspInstruction(DspOp.HALT, 0, 0, 0, 0, false, 0, 0)));
    DspProgram decoded = new DspProgram("p", p.instructions().stream().map(in -> DspInstruction.decode(in.encode()))
        .toList());
    assertEquals(p, decoded);
    assertEquals(p.hashCode(), decoded.hashCode());
  }
}
