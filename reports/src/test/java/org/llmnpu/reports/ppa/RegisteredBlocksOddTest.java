package org.llmnpu.reports.ppa;

import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/** The other half of {@link RegisteredBlocksTest}'s registered blocks (the odd ones of the registry's order). */
class RegisteredBlocksOddTest {
  @TempDir
  Path tmp;

  @TestFactory
  Stream<DynamicTest> everyRegisteredBlockHasAreaACriticalPathAndJsonNumbers() {
    return RegisteredBlocksTest.blocks(1, tmp);
  }
}
