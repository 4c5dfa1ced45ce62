# Run by the volador_web target (cmake -P): installs the npm packages when
# node_modules is missing or older than package-lock.json (npm ci), bundles
# the UI into OUT_DIR and touches STAMP. A failure is reported in one line
# and leaves STAMP untouched, so the C++ build still succeeds.
# Inputs: NODE, NPM, WEB_DIR, OUT_DIR, STAMP.

function(give_up what)
  message(STATUS "volador_web: ${what} failed; the web UI is not built (the rest of the build goes on)")
endfunction()

set(installed "${WEB_DIR}/node_modules/.package-lock.json")
if(NOT EXISTS "${installed}" OR "${WEB_DIR}/package-lock.json" IS_NEWER_THAN "${installed}")
  execute_process(COMMAND "${NPM}" ci --no-audit --no-fund --loglevel=error
                  WORKING_DIRECTORY "${WEB_DIR}" RESULT_VARIABLE result OUTPUT_QUIET ERROR_VARIABLE npm_errors)
  if(NOT result EQUAL 0)
    string(REGEX REPLACE "\n.*" "" first_error "${npm_errors}")
    give_up("npm ci (${result}: ${first_error})")
    return()
  endif()
endif()

execute_process(COMMAND "${NODE}" build.mjs --outdir "${OUT_DIR}"
                WORKING_DIRECTORY "${WEB_DIR}" RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  give_up("esbuild")
  return()
endif()
file(TOUCH "${STAMP}")
