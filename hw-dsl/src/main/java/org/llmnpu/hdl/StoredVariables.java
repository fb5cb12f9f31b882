package org.llmnpu.hdl;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Recovers the Java variable that a call's result is stored in, from the calling class's own
 * class file: in {@code UInt acc = regInit(uint(8), 0);} the call is followed (after a cast)
 * by a store into a local slot, and the class file's local variable table names that slot
 * {@code acc}; a store into a field gives the field's name. Only a store directly after the
 * call counts ({@code UInt y = x.add(regNext(x))} names the sum, not the register, so the
 * register gets no name). A result that is returned ({@code return regNext(x);} in a helper)
 * is followed to the helper's caller.
 *
 * <p>The class file is part of the compiled design, so the names are the same wherever and
 * however the generator runs (source files are not needed). Local names need the local
 * variable table, which {@code javac -g} writes (Maven and Gradle compile with it by default);
 * without it only field stores are recovered.
 */
final class StoredVariables {
  private static final int INVOKEVIRTUAL = 0xb6;
  private static final int INVOKESPECIAL = 0xb7;
  private static final int INVOKESTATIC = 0xb8;
  private static final int INVOKEINTERFACE = 0xb9;
  private static final int INVOKEDYNAMIC = 0xba;
  private static final int CHECKCAST = 0xc0;
  private static final int ASTORE = 0x3a;
  private static final int ASTORE_0 = 0x4b;
  private static final int ASTORE_3 = 0x4e;
  private static final int WIDE = 0xc4;
  private static final int PUTFIELD = 0xb5;
  private static final int ARETURN = 0xb0;

  /**
   * What the code does with a call's result: stores it in {@code variable} (null when it is
   * not stored directly), or returns it to its own caller ({@code returned}).
   */
  record Store(String variable, boolean returned) {
    static final Store NONE = new Store(null, false);
    static final Store RETURNED = new Store(null, true);
  }

  private static final ClassValue<ClassCode> CODE = new ClassValue<>() {
    @Override
    protected ClassCode computeValue(Class<?> type) {
      return ClassCode.read(type);
    }
  };

  private StoredVariables() {
  }

  /** What the code of frame {@code f} does with the result of the call it is making. */
  static Store after(StackWalker.StackFrame f) {
    return CODE.get(f.getDeclaringClass()).storeAfterCall(f.getMethodName() + f.getDescriptor(), f.getByteCodeIndex());
  }

  private record Local(int start, int length, String name, int slot) {
  }

  private record Method(byte[] code, List<Local> locals) {
  }

  /** The parts of a class file needed here: method code, local variable tables, field names. */
  private record ClassCode(Map<String, Method> methods, String[] utf8, int[] refA, int[] refB) {
    static final ClassCode NONE = new ClassCode(Map.of(), new String[0], new int[0], new int[0]);

    static ClassCode read(Class<?> type) {
      String name = type.getName();
      try (InputStream in = type.getResourceAsStream(name.substring(name.lastIndexOf('.') + 1) + ".class")) {
        return in == null ? NONE : parse(new DataInputStream(new BufferedInputStream(in)));
      } catch (IOException | RuntimeException e) {
        return NONE; // not a readable class file: no names from it
      }
    }

    Store storeAfterCall(String methodKey, int bci) {
      Method m = methods.get(methodKey);
      if (m == null || bci < 0 || bci >= m.code.length) {
        return Store.NONE;
      }
      byte[] c = m.code;
      int op = c[bci] & 0xff;
      int pc;
      if (op == INVOKEVIRTUAL || op == INVOKESPECIAL || op == INVOKESTATIC) {
        pc = bci + 3;
      } else if (op == INVOKEINTERFACE || op == INVOKEDYNAMIC) {
        pc = bci + 5;
      } else {
        return Store.NONE;
      }
      if (pc < c.length && (c[pc] & 0xff) == CHECKCAST) {
        pc += 3;
      }
      if (pc >= c.length) {
        return Store.NONE;
      }
      int next = c[pc] & 0xff;
      if (next >= ASTORE_0 && next <= ASTORE_3) {
        return new Store(local(m, next - ASTORE_0, pc + 1), false);
      } else if (next == ASTORE && pc + 1 < c.length) {
        return new Store(local(m, c[pc + 1] & 0xff, pc + 2), false);
      } else if (next == WIDE && pc + 3 < c.length && (c[pc + 1] & 0xff) == ASTORE) {
        return new Store(local(m, u2(c, pc + 2), pc + 4), false);
      } else if (next == PUTFIELD && pc + 2 < c.length) {
        return new Store(fieldName(u2(c, pc + 1)), false);
      } else if (next == ARETURN) {
        return Store.RETURNED;
      }
      return Store.NONE;
    }

    /** The local in {@code slot} whose scope starts at {@code after} (a declaration) or covers it. */
    private static String local(Method m, int slot, int after) {
      String covering = null;
      for (Local l : m.locals) {
        if (l.slot != slot) {
          continue;
        }
        if (l.start == after) {
          return l.name;
        }
        if (l.start <= after && after < l.start + l.length) {
          covering = l.name;
        }
      }
      return covering;
    }

    private String fieldName(int fieldRef) {
      if (fieldRef <= 0 || fieldRef >= refB.length) {
        return null;
      }
      int nameAndType = refB[fieldRef];
      return nameAndType > 0 && nameAndType < refA.length ? utf8[refA[nameAndType]] : null;
    }

    private static int u2(byte[] c, int at) {
      return (c[at] & 0xff) << 8 | (c[at + 1] & 0xff);
    }

    private static ClassCode parse(DataInputStream in) throws IOException {
      if (in.readInt() != 0xCAFEBABE) {
        return NONE;
      }
      in.readUnsignedShort();
      in.readUnsignedShort();
      int count = in.readUnsignedShort();
      String[] utf8 = new String[count];
      int[] refA = new int[count];
      int[] refB = new int[count];
      for (int i = 1; i < count; i++) {
        int tag = in.readUnsignedByte();
        switch (tag) {
          case 1 -> utf8[i] = in.readUTF();
          case 3, 4 -> in.readInt();
          case 5, 6 -> {
            in.readLong();
            i++; // eight-byte constants take two entries
          }
          case 7, 8, 16, 19, 20 -> in.readUnsignedShort();
          case 9, 10, 11, 12, 17, 18 -> {
            refA[i] = in.readUnsignedShort();
            refB[i] = in.readUnsignedShort();
          }
          case 15 -> {
            in.readUnsignedByte();
            in.readUnsignedShort();
          }
          default -> throw new IOException("unknown constant pool tag " + tag);
        }
      }
      in.skipNBytes(6); // access flags, this class, super class
      in.skipNBytes(2L * in.readUnsignedShort()); // interfaces
      int fields = in.readUnsignedShort();
      for (int i = 0; i < fields; i++) {
        in.skipNBytes(6);
        skipAttributes(in);
      }
      Map<String, Method> methods = new HashMap<>();
      int methodCount = in.readUnsignedShort();
      for (int i = 0; i < methodCount; i++) {
        in.readUnsignedShort();
        String key = utf8[in.readUnsignedShort()] + utf8[in.readUnsignedShort()];
        int attributes = in.readUnsignedShort();
        for (int a = 0; a < attributes; a++) {
          String attribute = utf8[in.readUnsignedShort()];
          long length = in.readInt() & 0xffffffffL;
          if ("Code".equals(attribute)) {
            methods.put(key, readCode(in, utf8));
          } else {
            in.skipNBytes(length);
          }
        }
      }
      return new ClassCode(methods, utf8, refA, refB);
    }

    private static Method readCode(DataInputStream in, String[] utf8) throws IOException {
      in.skipNBytes(4); // max stack, max locals
      byte[] code = new byte[in.readInt()];
      in.readFully(code);
      in.skipNBytes(8L * in.readUnsignedShort()); // exception table
      List<Local> locals = new ArrayList<>();
      int attributes = in.readUnsignedShort();
      for (int a = 0; a < attributes; a++) {
        String attribute = utf8[in.readUnsignedShort()];
        long length = in.readInt() & 0xffffffffL;
        if ("LocalVariableTable".equals(attribute)) {
          int n = in.readUnsignedShort();
          for (int i = 0; i < n; i++) {
            int start = in.readUnsignedShort();
            int len = in.readUnsignedShort();
            String name = utf8[in.readUnsignedShort()];
            in.readUnsignedShort(); // descriptor
            locals.add(new Local(start, len, name, in.readUnsignedShort()));
          }
        } else {
          in.skipNBytes(length);
        }
      }
      return new Method(code, locals);
    }

    private static void skipAttributes(DataInputStream in) throws IOException {
      int attributes = in.readUnsignedShort();
      for (int a = 0; a < attributes; a++) {
        in.readUnsignedShort();
        in.skipNBytes(in.readInt() & 0xffffffffL);
      }
    }
  }
}
