import ArgumentParser
import LookoutService

/// Reads and checks a configuration file for a command: every problem one line on standard
/// error, then exit 64.
func loadConfiguration(_ path: String) throws -> LookoutConfiguration {
    do throws(ConfigurationProblems) {
        return try ConfigurationFile.load(path: path)
    } catch {
        throw refuse(error.problems)
    }
}

/// Says every problem, one line each, and returns the usage error's exit code.
func refuse(_ problems: [ConfigurationProblem]) -> ExitCode {
    for problem in problems { printDiagnostic(problem.description) }
    return ExitCode(ExitStatus.usage)
}
