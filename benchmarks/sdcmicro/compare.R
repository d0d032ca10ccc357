# Runs sdcMicro's microaggregation() on CSV files and writes the masked values, for
# benchmarks/sdcmicro/compare.py (which compares them with mabench). Not a test dependency.
#
# sdcMicro is not installed from a registry here: the script sources R/microaggregation.R and
# R/mdav.R of an sdcMicro checkout and compiles its src/Mdav.cpp with Rcpp::sourceCpp. Only a
# stub class is defined (setMethod's signature names sdcMicroObj); nothing of sdcMicro is copied.
#
# Usage: Rscript compare.R SDCMICRO_DIR JOBS_CSV
#   JOBS_CSV columns: input (CSV of original values, header = variables), method, k, seed, output
#   (masked values are written with 17 significant digits), plus optional nc and clustermethod.
#   A line per job goes to stdout: output,seconds,cpu_seconds (elapsed and CPU time of microaggregation()), or
#   output,ERROR message when sdcMicro stops (then no output file).
suppressMessages({
  library(methods); library(MASS); library(robustbase); library(cluster); library(Rcpp)
})
args <- commandArgs(trailingOnly = TRUE)
src <- args[[1]]
jobs <- read.csv(args[[2]], stringsAsFactors = FALSE)
setClass("sdcMicroObj", representation("VIRTUAL"))
Rcpp::sourceCpp(file.path(src, "src/Mdav.cpp"), cacheDir = file.path(tempdir(), "sdcmicro-rcpp"))
source(file.path(src, "R/mdav.R"))
source(file.path(src, "R/microaggregation.R"))

cache <- list()
for (i in seq_len(nrow(jobs))) {
  job <- jobs[i, ]
  if (is.null(cache[[job$input]])) cache[[job$input]] <- read.csv(job$input, check.names = FALSE)
  x <- cache[[job$input]]
  nc <- if ("nc" %in% names(job) && !is.na(job$nc)) job$nc else 8
  cm <- if ("clustermethod" %in% names(job) && nzchar(job$clustermethod)) job$clustermethod else "clara"
  set.seed(job$seed)
  t0 <- proc.time()
  res <- tryCatch(suppressWarnings(suppressMessages(
    microaggregation(x, method = job$method, aggr = job$k, nc = nc, clustermethod = cm))),
    error = function(e) conditionMessage(e))
  used <- proc.time() - t0
  secs <- used[["elapsed"]]
  cpu <- used[["user.self"]] + used[["sys.self"]]
  if (is.character(res)) {  # sdcMicro stopped: say so, write nothing
    cat(sprintf("%s,ERROR %s\n", job$output, gsub("[\r\n,]+", " ", res)))
    next
  }
  mx <- as.matrix(res$mx)
  out <- matrix(sprintf("%.17g", mx), nrow = nrow(mx))
  colnames(out) <- colnames(x)
  write.csv(out, job$output, row.names = FALSE, quote = FALSE)
  cat(sprintf("%s,%.6f,%.6f\n", job$output, secs, cpu))
}
