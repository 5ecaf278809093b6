# kgb_add_doctest(NAME SOURCES... LIBS ... LABELS ... [ARGS ...] [NO_CTEST]):
# one doctest executable with a shared main, registered as one ctest test
# (with ARGS, e.g. a --test-suite-exclude filter) unless NO_CTEST.
function(kgb_add_doctest name)
  cmake_parse_arguments(ARG "NO_CTEST" "TIMEOUT" "SOURCES;LIBS;LABELS;ARGS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE kgb_doctest_main ${ARG_LIBS})
  if(ARG_NO_CTEST)
    return()
  endif()
  add_test(NAME ${name} COMMAND ${name} ${ARG_ARGS})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT})
endfunction()

# The source families of the benchmark: the folders benchmark/tasks/<source>/,
# globbed again at every build so a new family gets its shards without a
# manual reconfigure.
file(GLOB kgb_task_family_dirs LIST_DIRECTORIES true CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/benchmark/tasks/*)
set(KGB_TASK_FAMILIES "")
foreach(dir ${kgb_task_family_dirs})
  if(IS_DIRECTORY ${dir})
    get_filename_component(family ${dir} NAME)
    list(APPEND KGB_TASK_FAMILIES ${family})
  endif()
endforeach()

# kgb_add_task_shards(PREFIX TARGET TEST_CASE pattern LABELS ... [TIMEOUT s]):
# one ctest test per source family, PREFIX.<family>, running the test cases of
# TARGET's "sweep" suite that match `pattern` on that family's tasks
# (KGB_TASK_FAMILY). A shard that matches no test case fails instead of
# passing empty.
function(kgb_add_task_shards prefix target)
  cmake_parse_arguments(ARG "" "TEST_CASE;TIMEOUT" "LABELS" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 900)
  endif()
  foreach(family ${KGB_TASK_FAMILIES})
    add_test(NAME ${prefix}.${family}
             COMMAND ${target} --test-suite=sweep "--test-case=${ARG_TEST_CASE}")
    set_tests_properties(${prefix}.${family} PROPERTIES
      ENVIRONMENT KGB_TASK_FAMILY=${family}
      LABELS "${ARG_LABELS}"
      TIMEOUT ${ARG_TIMEOUT}
      FAIL_REGULAR_EXPRESSION "test cases: +0 +\\|")
  endforeach()
endfunction()

# kgb_add_serial_part(TARGET [TIMEOUT s]): TARGET's ctest test leaves out its
# doctest suite "serial", which runs as TARGET.serial with nothing else beside
# it (RUN_SERIAL): cases that assert iteration counts or speed relations, and
# cases that exhaust a resource shared by every runner on the machine.
function(kgb_add_serial_part target)
  cmake_parse_arguments(ARG "" "TIMEOUT" "" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  get_test_property(${target} LABELS labels)
  add_test(NAME ${target}.serial COMMAND ${target} --test-suite=serial)
  set_tests_properties(${target}.serial PROPERTIES LABELS "${labels}" TIMEOUT ${ARG_TIMEOUT} RUN_SERIAL ON
                                                   FAIL_REGULAR_EXPRESSION "test cases: +0 +\\|")
endfunction()
