package org.llmnpu.spinal

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path, Paths, StandardCopyOption}
import spinal.core._

/**
 * Elaborates the bus IP and writes its Verilog into the directory given as the only argument (the build puts
 * it among the module's classes, so the jar carries it). The output is made byte-identical run to run: no
 * date and no repository hash in the header, and the file is written atomically.
 */
object ExportVerilog {
  /** The components exported, by file name. */
  val components: Seq[(String, () => Component)] = Seq("NpuControlRegs.v" -> (() => NpuControlRegs()))

  def main(args: Array[String]): Unit = {
    require(args.length == 1, "usage: ExportVerilog <output directory>")
    export(Paths.get(args(0)))
  }

  def export(dir: Path): Unit = {
    Files.createDirectories(dir)
    for ((file, component) <- components) {
      val work = Files.createTempDirectory("spinal-export")
      try {
        SpinalConfig(
          mode = Verilog,
          targetDirectory = work.toString,
          netlistFileName = file,
          headerWithDate = false,
          headerWithRepoHash = false,
          defaultConfigForClockDomains = ClockDomainConfig(resetKind = SYNC),
          verbose = false
        ).generate(component())
        val text = new String(Files.readAllBytes(work.resolve(file)), StandardCharsets.UTF_8)
        val tmp = dir.resolve(file + ".tmp")
        Files.write(tmp, text.getBytes(StandardCharsets.UTF_8))
        Files.move(tmp, dir.resolve(file), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE)
      } finally {
        Files.walk(work).sorted(java.util.Comparator.reverseOrder()).forEach(p => Files.delete(p))
      }
    }
  }
}
