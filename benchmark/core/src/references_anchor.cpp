// Keeps the references object library non-empty before any task exists.
namespace kgb {
int references_anchor = 0;
}
