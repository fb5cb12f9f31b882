package org.llmnpu.hdl;

import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

/**
 * Compiles Java sources held in strings (a user guide's code blocks) with the JDK compiler
 * against the test class path, as a user's build would; shared through hw-dsl's test jar.
 */
public final class GuideCompiler {
  private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
  private static final Pattern TOP_TYPE = Pattern.compile(
      "^(?:public\\s+)?(?:final\\s+|abstract\\s+)*(?:class|interface|record)\\s+(\\w+)", Pattern.MULTILINE);
  private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+);", Pattern.MULTILINE);

  private GuideCompiler() {
  }

  /** What the compiler said (empty when it compiled) and where the classes went. */
  public record Result(String errors, Path classes) {
  }

  /** The {@code ```java} blocks of a Markdown text between two headings (section included). */
  public static List<String> javaBlocks(String markdown, String fromHeading, String toHeading) {
    int from = markdown.indexOf(fromHeading);
    if (from < 0) {
      throw new IllegalArgumentException("no heading '" + fromHeading + "'");
    }
    int to = toHeading == null ? -1 : markdown.indexOf(toHeading, from + fromHeading.length());
    String section = markdown.substring(from, to < 0 ? markdown.length() : to);
    List<String> blocks = new ArrayList<>();
    Matcher m = JAVA_BLOCK.matcher(section);
    while (m.find()) {
      blocks.add(m.group(1));
    }
    return blocks;
  }

  /** The qualified name of the (first) top-level type a compilation unit declares. */
  public static String qualifiedName(String source) {
    Matcher t = TOP_TYPE.matcher(source);
    if (!t.find()) {
      throw new IllegalArgumentException("no top-level type in:\n" + source);
    }
    Matcher p = PACKAGE.matcher(source);
    return p.find() ? p.group(1) + "." + t.group(1) : t.group(1);
  }

  /** Compiles the units (qualified name to source) into {@code out}. */
  public static Result compile(Map<String, String> units, Path out) {
    return compile(units, out, List.of());
  }

  /**
   * As {@link #compile(Map, Path)} with more javac options. Without a {@code -g...} option
   * among them, compiles with {@code -g} (local variable names included) as Maven does.
   */
  public static Result compile(Map<String, String> units, Path out, List<String> extraOptions) {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    if (javac == null) {
      throw new IllegalStateException("no Java compiler in this runtime; run the tests on a JDK");
    }
    List<JavaFileObject> files = new ArrayList<>();
    units.forEach((name, text) -> files.add(new SimpleJavaFileObject(
        URI.create("string:///" + name.replace('.', '/') + ".java"), JavaFileObject.Kind.SOURCE) {
      @Override
      public CharSequence getCharContent(boolean ignoreEncodingErrors) {
        return text;
      }
    }));
    StringWriter errors = new StringWriter();
    List<String> options = new ArrayList<>(List.of("-d", out.toString(), "-classpath", classPath(), "-proc:none",
        "-Xlint:all", "-Xlint:-processing", "-Werror"));
    if (extraOptions.stream().noneMatch(o -> o.startsWith("-g"))) {
      options.add("-g");  // debug information with local variable names, as Maven and Gradle compile
    }
    options.addAll(extraOptions);
    boolean ok = javac.getTask(errors, null, null, options, null, files).call();
    return new Result(ok ? "" : errors.toString().isEmpty() ? "javac failed" : errors.toString(), out);
  }

  /** The class path the tests run with (Surefire passes it in a property when it uses a manifest jar). */
  public static String classPath() {
    String surefire = System.getProperty("surefire.test.class.path");
    return surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
  }

}
