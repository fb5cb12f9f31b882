package org.llmnpu.hdl;

/**
 * The former name of {@link HwModule}, kept only so that generators written against it keep
 * compiling while they move. It clashes with {@code java.lang.Module} under
 * {@code import org.llmnpu.hdl.*}; extend {@link HwModule} instead.
 */
@Deprecated(forRemoval = true)
public abstract class Module extends HwModule {
  protected Module() {
  }
}
