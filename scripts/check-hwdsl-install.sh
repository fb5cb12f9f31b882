#!/usr/bin/env bash
# Checks the hw-dsl guide's install command end to end, as a user outside this repository
# would use the toolkit: installs hw-dsl and verilator-harness (with the parent pom) into a
# scratch local Maven repository, then builds and tests a new project that depends on them,
# offline. The scratch repository starts as a copy of ~/.m2/repository without org/llmnpu,
# so the shared repository is never written.
#   scripts/check-hwdsl-install.sh [--keep]
#   --keep  leave the scratch directory (printed) for inspection
set -euo pipefail
keep=0
for a in "$@"; do
  case "$a" in
    --keep) keep=1 ;;
    *) echo "check-hwdsl-install: unknown option '$a' (allowed: --keep)" >&2; exit 2 ;;
  esac
done
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/hwdsl-install.XXXXXX")"
[ "$keep" = 1 ] || trap 'rm -rf "$work"' EXIT
repo="$work/m2"
say() { echo "check-hwdsl-install: $*"; }

say "scratch repository $repo (copy of ~/.m2/repository without org/llmnpu)"
cp -a "$HOME/.m2/repository" "$repo"
rm -rf "$repo/org/llmnpu"

say "installing from a clean export of HEAD"
mkdir "$work/src"
git -C "$root" archive HEAD | tar -x -C "$work/src"
# the guide's command, with the scratch repository
(cd "$work/src" && mvn -B -q -o -Dmaven.repo.local="$repo" -pl hw-dsl,verilator-harness -am install -DskipTests)

version="$(sed -n 's:.*<version>\(.*\)</version>.*:\1:p' "$root/pom.xml" | head -1)"
project="$work/blinky"
mkdir -p "$project/src/main/java/com/example/blinky" "$project/src/test/java/com/example/blinky"
cat > "$project/pom.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>blinky</artifactId>
  <version>1.0</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency><groupId>org.llmnpu</groupId><artifactId>hw-dsl</artifactId><version>$version</version></dependency>
    <dependency><groupId>org.llmnpu</groupId><artifactId>verilator-harness</artifactId><version>$version</version></dependency>
    <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><version>5.14.4</version><scope>test</scope></dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.13.0</version></plugin>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>3.5.4</version></plugin>
    </plugins>
  </build>
</project>
EOF
cat > "$project/src/main/java/com/example/blinky/Blinky.java" <<'EOF'
package com.example.blinky;

import static org.llmnpu.hdl.Hw.*;

import org.llmnpu.hdl.*;

/** Lights {@code led} in the upper half of a 24-bit cycle count. */
public final class Blinky extends HwModule {
  public final Bool led = out(bool());

  public Blinky() {
    UInt count = regInit(uint(24), 0);
    count.set(count.add(1));
    led.set(count.bit(23));
  }
}
EOF
cat > "$project/src/test/java/com/example/blinky/BlinkyTest.java" <<'EOF'
package com.example.blinky;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.llmnpu.hdl.emit.Verilog;
import org.llmnpu.hdl.sim.Simulator;
import org.llmnpu.verilator.Simulators;

class BlinkyTest {
  @Test
  void emitsAndSimulates() {
    String v = Verilog.emit(new Blinky()).files().get("Blinky.v");
    assertTrue(v.contains("reg  [23:0] count;"), "the register takes its variable's name:\n" + v);
    try (Simulator sim = Simulators.start(Verilog.emit(new Blinky()))) {
      sim.reset(2);
      sim.step(10);
      assertEquals(0, sim.peekLong("led"));
    }
  }
}
EOF
say "building and testing a project that depends on hw-dsl $version, offline"
(cd "$project" && mvn -B -q -o -Dmaven.repo.local="$repo" test)
if [ "$keep" = 1 ]; then say "ok (kept in $work)"; else say ok; fi
