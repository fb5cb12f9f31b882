package org.llmnpu.rtl.mac;

import static org.llmnpu.hdl.Hw.bitsToHold;
import static org.llmnpu.hdl.Hw.cat;
import static org.llmnpu.hdl.Hw.catLsbFirst;
import static org.llmnpu.hdl.Hw.mux;
import static org.llmnpu.hdl.Hw.sint;
import static org.llmnpu.hdl.Hw.uint;

import java.util.ArrayList;
import java.util.List;
import org.llmnpu.hdl.Bool;
import org.llmnpu.hdl.ClockGating;
import org.llmnpu.hdl.Mem;
import org.llmnpu.hdl.SInt;
import org.llmnpu.hdl.UInt;

/**
 * The storage and the array of the {@link GemmEngine} (layouts: its class comment): the X buffer (one memory, or
 * with the dense mode two halves written one at a time), the W buffer of the engine's kind ({@link WeightStore}:
 * one memory or {@code weightRowsPerCycle} row banks, two banks by N-tile parity for streamed INT4 pairs, or the
 * dense mode's values and index memories), the {@link MacArray} on its optional clock gate, and the per-column psum
 * memories with the {@code yAddress}/{@code yData} read port. All reads are asynchronous, so the buffers add no
 * cycle to the engine's formula. Each method builds its logic into the engine (the generated Verilog is the
 * engine's).
 */
abstract class GemmEngineDatapath extends GemmBackend {
  GemmEngineDatapath(GemmEngineConfig c, int weightRowsPerCycle) {
    super(c, weightRowsPerCycle);
  }

  /**
   * The X buffer, written from {@code xWrite}/{@code xAddress}/{@code xData}: one memory {@code xBuffer} of
   * {@code kPerTile} activations a word, or with {@code denseMode} the halves {@code xBufferLo} and
   * {@code xBufferHi}, written as {@code xHalves} selects.
   */
  final List<Mem<UInt>> activationBuffer(MacArrayConfig a, boolean denseMode, UInt xHalves) {
    UInt xAddress = load.xAddress;
    List<Mem<UInt>> xBuffer = new ArrayList<>();
    if (denseMode) {
      int half = 4 * a.kPerTile();
      xBuffer.add(mem("xBufferLo", uint(half), 1 << xAddress.width()));
      xBuffer.add(mem("xBufferHi", uint(half), 1 << xAddress.width()));
      when(load.xWrite.and(xHalves.bit(0)), () -> xBuffer.get(0).write(xAddress, load.xData.lsbs(half)));
      when(load.xWrite.and(xHalves.bit(1)), () -> xBuffer.get(1).write(xAddress, load.xData.msbs(half)));
    } else {
      xBuffer.add(mem("xBuffer", uint(8 * a.kPerTile()), 1 << xAddress.width()));
      when(load.xWrite, () -> xBuffer.get(0).write(xAddress, load.xData));
    }
    return xBuffer;
  }

  /** The X word at {@code address} (both halves with the dense mode), asynchronous. */
  static UInt readActivations(List<Mem<UInt>> xBuffer, UInt address) {
    return xBuffer.size() == 1 ? xBuffer.get(0).readAsync(address)
        : cat(xBuffer.get(1).readAsync(address), xBuffer.get(0).readAsync(address)).asUInt();
  }

  /**
   * The W buffer, written from the load ports: with {@code denseMode} the values and index memories (index banks
   * for the packed metadata of {@code wMetaWrite} with {@code weightStream}), else with {@code pairs} two banks by
   * N-tile parity ({@code wPairWrite} writes {@code wDataHigh} into the next N tile), else the
   * {@code weightRowsPerCycle} row banks. The dense-mode ports are null without it, the pair ports without pairs.
   */
  final WeightStore weightStore(MacArrayConfig a, boolean denseMode, boolean pairs, boolean weightStream,
                                Bool wIndexWrite, Bool wMetaWrite, Bool wValuesOnly, Bool wPairWrite,
                                UInt wDataHigh) {
    WeightSparsity sp = a.sparsity();
    int entry = a.weightEntryBits();
    List<Mem<UInt>> wBuffer = denseMode ? null : pairs ? parityWeightBuffer(entry) : weightBuffer(entry);
    SplitWeights split = denseMode ? new SplitWeights(a.cols(), sp.indexBits(),
        weightStream ? (sp.group() == 4 ? 4 : 2) : 1, wIndexWrite, wMetaWrite, wValuesOnly) : null;
    if (denseMode) {
      split.build();
    } else if (pairs) {
      writeParityWeightBuffer(wBuffer, wPairWrite, wDataHigh);
    } else {
      writeWeightBuffer(wBuffer);
    }
    return new WeightStore(wBuffer, split, pairs);
  }

  /** The W buffer {@link #weightStore} built: reads the PE row the loader moves into the array. */
  final class WeightStore {
    private final List<Mem<UInt>> banks;
    private final SplitWeights split;
    private final boolean pairs;

    private WeightStore(List<Mem<UInt>> banks, SplitWeights split, boolean pairs) {
      this.banks = banks;
      this.split = split;
      this.pairs = pairs;
    }

    /** The entries of PE row {@code row} of the W tile {@code (nTile, kTile)}, as one {@code wBuffer} word. */
    UInt readRow(UInt nTile, UInt kTile, UInt row) {
      return split != null ? split.read(cat(nTile, kTile, row).asUInt())
          : pairs ? readParityWeightRow(banks, nTile, kTile, row)
          : readWeightRow(banks, nTile, kTile, row);
    }
  }

  /**
   * The MAC array, on its own clock gate {@value GemmEngine#ARRAY_GATE} when {@code arrayGating} is not OFF: open
   * while {@code run} and for {@code rows + cols} cycles after reset ({@link GemmEngine}'s class comment).
   */
  final MacArray gatedArray(MacArrayConfig a, GemmEngineConfig c, Bool run, ClockGating arrayGating) {
    MacArray[] array = new MacArray[1];
    Runnable body = () -> array[0] = instance("array", new MacArray(a, c.mBits() + c.nTileBits(), arrayGating));
    if (arrayGating == ClockGating.OFF) {
      body.run();
      return array[0];
    }
    int warmCycles = a.rows() + a.cols();
    UInt warm = regInit("arrayWarm", uint(bitsToHold(warmCycles)), 0);
    Bool warming = wire("arrayWarming", warm.ne(warmCycles));
    when(warming, () -> warm.set(warm.add(1)));
    clockGatedPipeline(GemmEngine.ARRAY_GATE, run.or(warming), arrayGating, body);
    return array[0];
  }

  /**
   * Per column {@code c} the psum memory {@code psum_c}: written by the array's write-backs, read back by its first
   * K tiles, and read at {@code yAddress} into {@code yData} (column 0 in the least significant bits).
   */
  final void resultMemories(MacArrayConfig a, MacArray array) {
    List<SInt> yLanes = new ArrayList<>();
    for (int col = 0; col < a.cols(); col++) {
      Mem<SInt> psum = mem("psum_" + col, sint(a.accWidth()), 1 << yAddress.width());
      int cc = col;
      when(array.writeValid.get(col), () -> psum.write(array.writeAddress.get(cc), array.writeData.get(cc)));
      array.readbackData.get(col).set(psum.readAsync(array.readbackAddress.get(col)));
      yLanes.add(psum.readAsync(yAddress));
    }
    yData.set(catLsbFirst(yLanes));
  }

  /**
   * The W buffer of the dense mode: values and indices in two memories, so a metadata row writes indices only; the
   * indices in {@code banks} memories (entry row {@code a} in bank {@code a mod banks} at {@code a / banks}), so a
   * packed metadata line ({@link GemmEngine#wMetaWrite}) writes {@code banks} rows at once.
   */
  private final class SplitWeights {
    private final int cols;
    private final int indexBits;
    private final int banks;
    private final Bool wIndexWrite;
    private final Bool wMetaWrite;
    private final Bool wValuesOnly;
    private Mem<UInt> values;
    private final List<Mem<UInt>> indices = new ArrayList<>();

    SplitWeights(int cols, int indexBits, int banks, Bool wIndexWrite, Bool wMetaWrite, Bool wValuesOnly) {
      this.cols = cols;
      this.indexBits = indexBits;
      this.banks = banks;
      this.wIndexWrite = wIndexWrite;
      this.wMetaWrite = wMetaWrite;
      this.wValuesOnly = wValuesOnly;
    }

    void build() {
      int depth = 1 << load.wAddress.width();
      values = mem("wValues", uint(8 * cols), depth);
      int e = 8 + indexBits;
      List<UInt> v = new ArrayList<>();
      List<UInt> ix = new ArrayList<>();
      for (int c = 0; c < cols; c++) {
        v.add(load.wData.slice(e * c + 7, e * c));
        ix.add(load.wData.slice(e * c + e - 1, e * c + 8));
      }
      UInt valueWord = catLsbFirst(v).asUInt();
      UInt indexWord = catLsbFirst(ix).asUInt();
      when(load.wWrite, () -> values.write(load.wAddress, valueWord));
      if (banks == 1) {
        indices.add(mem("wIndex", uint(indexBits * cols), depth));
        when(load.wWrite.or(wIndexWrite), () -> indices.get(0).write(load.wAddress, indexWord));
        return;
      }
      int shift = Integer.numberOfTrailingZeros(banks);
      int fieldBits = 8 / banks;
      UInt groupAddress = load.wAddress.slice(load.wAddress.width() - 1, shift);
      UInt bank = load.wAddress.lsbs(shift);
      for (int i = 0; i < banks; i++) {
        Mem<UInt> m = mem("wIndex_" + i, uint(indexBits * cols), depth / banks);
        indices.add(m);
        List<UInt> fields = new ArrayList<>();
        for (int c = 0; c < cols; c++) {
          fields.add(load.wData.slice(8 * c + fieldBits * i + indexBits - 1, 8 * c + fieldBits * i));
        }
        UInt metaWord = catLsbFirst(fields).asUInt();
        int bankIndex = i;
        when(wMetaWrite, () -> m.write(groupAddress, metaWord))
            .elseWhen(load.wWrite.and(wValuesOnly.not()).or(wIndexWrite).and(bank.eq(bankIndex)),
                () -> m.write(groupAddress, indexWord));
      }
    }

    /** The index word of the entry row at {@code address}. */
    private UInt readIndex(UInt address) {
      if (banks == 1) {
        return indices.get(0).readAsync(address);
      }
      int shift = Integer.numberOfTrailingZeros(banks);
      UInt groupAddress = address.slice(address.width() - 1, shift);
      UInt bank = address.lsbs(shift);
      UInt word = indices.get(0).readAsync(groupAddress);
      for (int i = 1; i < banks; i++) {
        word = mux(bank.eq(i), indices.get(i).readAsync(groupAddress), word);
      }
      return word;
    }

    /** The entries ({@code value, index}) of the PE row at {@code address}, as one {@code wBuffer} word. */
    UInt read(UInt address) {
      UInt valueWord = values.readAsync(address);
      UInt indexWord = readIndex(address);
      List<UInt> entries = new ArrayList<>();
      for (int c = 0; c < cols; c++) {
        entries.add(cat(indexWord.slice(indexBits * c + indexBits - 1, indexBits * c),
            valueWord.slice(8 * c + 7, 8 * c)).asUInt());
      }
      return catLsbFirst(entries).asUInt();
    }
  }

}
