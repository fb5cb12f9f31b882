package org.llmnpu.verilator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.hdl.GuideCompiler;

/**
 * Every Java block of "Your first generator" in hw-dsl/README.md compiles together, and the
 * guide's JUnit test of the MAC passes against the RTL in Verilator, as a user would run it.
 */
class UserGuideSimulationTest {
  @Test
  void guideCodeCompilesAndItsSimulationTestPasses(@TempDir Path dir) throws Throwable {
    Path readme = Path.of(System.getProperty("llmnpu.repoRoot", ".."), "hw-dsl", "README.md");
    Map<String, String> units = new LinkedHashMap<>();
    for (String block : GuideCompiler.javaBlocks(Files.readString(readme), "## Your first generator",
        "## Types and width rules")) {
      units.put(GuideCompiler.qualifiedName(block), block);
    }
    assertTrue(units.containsKey("com.example.mac.MacTest"), "the guide has a simulation test: " + units.keySet());
    Path classes = Files.createDirectories(dir.resolve("classes"));
    assertEquals("", GuideCompiler.compile(units, classes).errors());

    SimModes.local();  // the guide's test needs a Verilator: skipped locally without one, a failure in CI
    try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader())) {
      Class<?> test = loader.loadClass("com.example.mac.MacTest");
      var constructor = test.getDeclaredConstructor();
      constructor.setAccessible(true);
      Object instance = constructor.newInstance();
      int run = 0;
      for (Method m : test.getDeclaredMethods()) {
        if (m.isAnnotationPresent(Test.class)) {
          m.setAccessible(true);
          try {
            m.invoke(instance);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
          run++;
        }
      }
      assertEquals(1, run, "test methods of the guide's MacTest");
    }
  }
}
