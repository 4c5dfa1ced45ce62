// capnpc-records: a Cap'n Proto compiler plugin writing, for each schema file
// it is given, the plain C++ records described in record_file.hpp. Run by
// `capnp compile -o<this program>:OUTPUT_DIR FILE.capnp` (schemas/CMakeLists.txt).
#include <capnp/schema-loader.h>
#include <capnp/serialize.h>

#include <fstream>
#include <iostream>
#include <stdexcept>

#include "schemas/capnpc_records/record_file.hpp"

int main() {
  try {
    capnp::ReaderOptions options;
    options.traversalLimitInWords = 1u << 30;
    capnp::StreamFdMessageReader message(0, options);
    auto request = message.getRoot<capnp::schema::CodeGeneratorRequest>();
    capnp::SchemaLoader loader;
    for (auto node : request.getNodes()) loader.load(node);
    for (auto requested : request.getRequestedFiles()) {
      for (const auto& file : volador::records::generate_record_files(loader, loader.get(requested.getId()), request)) {
        std::ofstream out(file.name, std::ios::trunc);
        out << file.text;
        if (!out) throw std::runtime_error("cannot write " + file.name);
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "capnpc-records: " << e.what() << '\n';
    return 1;
  }
}
