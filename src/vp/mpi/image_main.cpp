// The main() of a program built by vela-mpicc / vela-mpicxx: the runtime, with the program
// linked into a shared object embedded in this executable (docs/architecture.md, "The program
// as a loaded image"). The image is loaded here, after start-up, and every rank runs the
// program's own main in its instance; nothing of the program is renamed.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "image/program_image.hpp"
#include "image/rank_image.hpp"
#include "vela/mpi/run.hpp"

// Placed by the wrappers' generated assembly around the image's bytes (weak: a program linked
// without one is told so).
extern "C" const std::byte vela_program_image_begin[] __attribute__((weak));
extern "C" const std::byte vela_program_image_end[] __attribute__((weak));
// The method given to the wrapper at link time (--vp-privatize), the run's default.
extern "C" const char vela_program_privatize[] __attribute__((weak));

namespace {

// The arguments with the link-time method put first when the command line names none.
std::vector<char*> with_default_method(int argc, char** argv) {
  std::vector<char*> out(argv, argv + argc);
  static std::string option = "--vp-privatize";
  static std::string method;
  if (vela_program_privatize == nullptr || *vela_program_privatize == 0) return out;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") break;
    if (a == option || a.starts_with(option + "=") || a == "--vp-tls-globals") return out;
  }
  method = vela_program_privatize;
  out.insert(out.begin() + (argc > 0 ? 1 : 0), {option.data(), method.data()});
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  vela::vp::prepare_ranks_across_processes(argc, argv);
  const std::string program =
      argc > 0 ? std::filesystem::path(argv[0]).filename().string() : std::string("mpi");
  const std::byte* begin = vela_program_image_begin;
  const std::byte* end = vela_program_image_end;
  if (begin == nullptr || end <= begin) {
    std::fprintf(stderr, "%s: error: no program image is embedded (link with vela-mpicc)\n",
                 program.c_str());
    return 1;
  }
  std::unique_ptr<vela::vp::detail::ProgramImage> image;
  try {
    image = std::make_unique<vela::vp::detail::ProgramImage>(std::span(begin, end), program);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), e.what());
    return 1;
  }
  vela::vp::detail::set_program_image(image.get());
  std::vector<char*> arguments = with_default_method(argc, argv);
  arguments.push_back(nullptr);
  const int status = vela::mpi::main(static_cast<int>(arguments.size() - 1), arguments.data(),
                                     &vela::vp::detail::run_image_main);
  vela::vp::detail::set_program_image(nullptr);
  return status;
}
